"""Dream benchmark: a synthetic memory folder of N topic files, parsed, compared, dry-run.

Usage::

    python benchmarks/dream.py [N] [--keep DIR] [--seed N] [--verify]

Generates a repository with a ``.claude/memory/`` folder of N topic files
(10,000 is the reference) with front matter and bodies in the usual
``**Why:**`` / ``**How to apply:**`` shape, about 5 % near-duplicates of an
older file, about 2 % newer files that reverse a directive of an older one on
a partly shared body, and about 10 % whose referenced files are gone from the
repository. Then prints:

1. parsing: the folder listed, every topic file read and parsed
   (``dreamd.dream.folder.inventory.load_folder``, as the dry run does it);
2. similarity: candidate search plus exact overlap plus the keep-the-newer
   choice (seed 000 STEPs 3-4), with the pairs compared against the seed's
   all-pairs count (n·(n-1)/2 within each type) and what was found against
   what was planted;
3. the full dry run (``dreamd.dream.gardener.run_dream``), when that module
   imports; otherwise one line saying why it was skipped.

Target: the dry run under 3 s for 10,000 files, candidates far below all
pairs. ``--verify`` also runs the all-pairs loop and checks the result is the
same (slow: tens of seconds at 10,000).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.folder.pairsearch import all_pairs_count
from dreamd.dream.folder.similarity import Similarity, find_similar
from dreamd.dream.folder.words import overlap_ratio, significant_words
from dreamd.dream.model import MemoryFile, MemoryType

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TYPES: tuple[tuple[MemoryType, float], ...] = (
    ("feedback", 0.40),
    ("project", 0.40),
    ("reference", 0.15),
    ("user", 0.05),
)
DUPLICATE_SHARE = 0.05
CONTRADICTION_SHARE = 0.02
STALE_SHARE = 0.10
FILES_PER_TOPIC = 20
_COMMON_TEXT = (
    "build test tests run runs script config file files path module function class method "
    "value values error errors check checks cache index query data table column schema "
    "migration service server client request response retry timeout budget window cursor "
    "store memory session user agent tool tools command commands output input default "
    "option options flag flags branch commit merge review release deploy version package "
    "install import export parse parser format report issue issues fix fixed change "
    "changes new old first last every each other same different because when where which "
    "while instead still only also just more less most least large small fast slow safe "
    "unsafe local remote shared global single multiple explicit implicit manual automatic "
    "clean stale fresh current previous next early late keep drop add remove rename move "
    "copy write read open close lock unlock start wait"
)
COMMON = _COMMON_TEXT.split()
# Directive words (always, never, prefer, avoid, stop) are left out: the generator writes
# directives as whole sentences, as memories do, not scattered at random.
SYLLABLES = ("ka", "lo", "mi", "re", "su", "ta", "ne", "vo", "ri", "pa", "de", "lu", "ba", "ko")


@dataclass
class Plan:
    """One topic file to write."""

    stem: str
    type: MemoryType
    title: str
    description: str
    body: str
    age_days: float
    refs: list[str]


@dataclass
class Planted:
    """What the generator put in, to compare with what the dream finds."""

    duplicates: int = 0
    contradictions: int = 0
    stale: int = 0


class Words:
    """A Zipf-weighted general vocabulary plus per-topic words and paths."""

    def __init__(self, rng: random.Random, topics: int) -> None:
        synthetic = {
            "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(8000)
        }
        self.general = COMMON + sorted(synthetic - set(COMMON))[:4000]
        weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(self.general))]
        self.cumulative = list(_accumulate(weights))
        pool = sorted(synthetic)
        self.topic_words = [[f"{rng.choice(pool)}{t}" for _ in range(14)] for t in range(topics)]
        self.topic_paths = [
            [f"src/{words[0]}/{w}.py" for w in words[1:6]] for words in self.topic_words
        ]
        self.rng = rng

    def common(self, n: int) -> list[str]:
        return self.rng.choices(self.general, cum_weights=self.cumulative, k=n)

    def sentence(self, topic: int, low: int, high: int) -> str:
        n = self.rng.randint(low, high)
        words = self.common(n - n // 3) + self.rng.choices(self.topic_words[topic], k=n // 3)
        self.rng.shuffle(words)
        return " ".join(words).capitalize() + "."


def _accumulate(values: Sequence[float]) -> list[float]:
    total, out = 0.0, []
    for value in values:
        total += value
        out.append(total)
    return out


def _body(words: Words, topic: int, refs: list[str], directive: str) -> str:
    rng = words.rng
    lead = " ".join(words.sentence(topic, 8, 18) for _ in range(rng.randint(2, 4)))
    why = " ".join(words.sentence(topic, 8, 16) for _ in range(rng.randint(1, 3)))
    how = " ".join(words.sentence(topic, 6, 14) for _ in range(rng.randint(1, 3)))
    cited = ", ".join(f"`{ref}`" for ref in refs)
    return (
        f"{lead}\n\n{directive}\n\n**Why:** {why}\n\n"
        f"**How to apply:** {how} See {cited} and `{words.topic_words[topic][2]}()`.\n"
    )


DIRECTIVES = (
    "Always use {tool} for the {topic} {word} step.",
    "Never use {tool} when the {topic} {word} runs.",
    "Prefer {tool} over the {word} path for {topic}.",
    "Don't call {tool} from {topic} {word} code.",
    "Run {tool} after each {topic} {word} change.",
)


REVERSIBLE = "Always use "


def _directive(words: Words, topic: int, index: int) -> str:
    """A rule in the memory's own terms; the tool is this memory's, as in real folders."""
    rng = words.rng
    tool = f"{rng.choice(SYLLABLES)}{rng.choice(SYLLABLES)}tool{index}"
    template = DIRECTIVES[index % len(DIRECTIVES)]
    topic_word = rng.choice(words.topic_words[topic])
    return template.format(tool=tool, topic=topic_word, word=rng.choice(words.general))


def _pick_type(rng: random.Random) -> MemoryType:
    return rng.choices([t for t, _ in TYPES], weights=[w for _, w in TYPES])[0]


def _original(words: Words, index: int, topics: int, planted: Planted) -> Plan:
    rng = words.rng
    topic = index % topics
    kind = _pick_type(rng)
    stale = rng.random() < STALE_SHARE
    if stale:
        refs = [f"src/{words.topic_words[topic][0]}/gone_{index}_{k}.py" for k in range(2)]
        planted.stale += 1
    else:
        refs = rng.sample(words.topic_paths[topic], 2)
    head = words.topic_words[topic]
    stem = f"{kind}_{head[rng.randrange(14)]}_{head[rng.randrange(14)]}_{index}"
    directive = _directive(words, topic, index)
    return Plan(
        stem=stem,
        type=kind,
        title=" ".join(stem.split("_")[1:]).capitalize(),
        description=words.sentence(topic, 6, 12),
        body=_body(words, topic, refs, directive),
        age_days=rng.uniform(20, 400),
        refs=refs,
    )


def _near_duplicate(words: Words, source: Plan, index: int) -> Plan:
    """The same memory rewritten later: most words kept, a few changed, a longer name."""
    rng = words.rng
    tokens = source.body.split(" ")
    for _ in range(len(tokens) // 10):
        tokens[rng.randrange(len(tokens))] = rng.choice(words.general)
    return Plan(
        stem=f"{source.stem}_updated_{index}",
        type=source.type,
        title=f"{source.title} updated",
        description=source.description,
        body=" ".join(tokens),
        age_days=source.age_days * rng.uniform(0.1, 0.9),
        refs=source.refs,
    )


def _reversal(words: Words, source: Plan, index: int) -> Plan:
    """A newer decision on the same matter: the directive reversed, the body partly rewritten.

    Words of the old body are replaced by new ones until the bodies share
    between 45 % and 57 % of their words: related, not duplicates (STEP 4).
    """
    rng = words.rng
    old = significant_words(source.body)
    paragraphs = source.body.replace(REVERSIBLE, "Never use ", 1).split("\n\n")
    spots = [
        (p, k)
        for p, text in enumerate(paragraphs)
        if "Never use " not in text
        for k, token in enumerate(text.split(" "))
        if "`" not in token and "\n" not in token
    ]
    rng.shuffle(spots)
    tokens = [text.split(" ") for text in paragraphs]
    target = rng.uniform(0.45, 0.57)
    for step, (p, k) in enumerate(spots):
        if overlap_ratio(old, significant_words(" ".join(" ".join(t) for t in tokens))) < target:
            break
        tokens[p][k] = f"{rng.choice(SYLLABLES)}{rng.choice(SYLLABLES)}new{index}x{step}"
    topic = int(source.stem.rsplit("_", 1)[1]) % len(words.topic_words)
    return Plan(
        stem=f"{source.type}_decision_{index}",
        type=source.type,
        title=f"Decision {index}",
        description=words.sentence(topic, 6, 10),
        body="\n\n".join(" ".join(t) for t in tokens),
        age_days=source.age_days * rng.uniform(0.1, 0.9),
        refs=source.refs,
    )


def plan_folder(n: int, seed: int) -> tuple[list[Plan], Planted, Words]:
    """N topic files: originals, then near-duplicates and reversals of some of them."""
    rng = random.Random(seed)
    topics = max(1, n // FILES_PER_TOPIC)
    words = Words(rng, topics)
    planted = Planted()
    n_dup, n_con = round(n * DUPLICATE_SHARE), round(n * CONTRADICTION_SHARE)
    originals = [_original(words, i, topics, planted) for i in range(n - n_dup - n_con)]
    sources = rng.sample(originals, min(len(originals), n_dup))
    reversible = [p for p in originals if REVERSIBLE in p.body and p not in sources]
    plans = list(originals)
    for k, source in enumerate(sources):
        plans.append(_near_duplicate(words, source, n + k))
        planted.duplicates += 1
    for k, source in enumerate(rng.sample(reversible, min(len(reversible), n_con))):
        plans.append(_reversal(words, source, n + n_dup + k))
        planted.contradictions += 1
    return plans, planted, words


def write_folder(root: Path, plans: list[Plan], words: Words) -> Path:
    """The repository (with the live paths) and its memory folder with ``MEMORY.md``."""
    repo = root / "repo"
    for paths in words.topic_paths:
        for ref in paths:
            target = repo / ref
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("pass\n")
    folder = repo / ".claude" / "memory"
    folder.mkdir(parents=True)
    lines = [f"# {repo.name} Memory", ""]
    for plan in plans:
        path = folder / f"{plan.stem}.md"
        path.write_text(
            f"---\nname: {plan.title}\ndescription: {plan.description}\n"
            f"type: {plan.type}\n---\n\n{plan.body}"
        )
        stamp = (NOW - timedelta(days=plan.age_days)).timestamp()
        os.utime(path, (stamp, stamp))
        lines.append(f"- [{plan.title}]({path.name}) — {plan.description}")
    (folder / "MEMORY.md").write_text("\n".join(sorted(lines[2:])) + "\n")
    return folder


# --- the all-pairs check ------------------------------------------------------------------------


def verify(files: list[MemoryFile], fast: Similarity) -> str:
    """Run the seed's all-pairs loop and compare its result with the search's."""
    started = time.perf_counter()
    slow = find_similar(files, exhaustive=True)
    seconds = time.perf_counter() - started
    same = (slow.duplicates, slow.contradictions) == (fast.duplicates, fast.contradictions)
    verdict = "same result" if same else "DIFFERENT RESULT"
    pairs = slow.comparisons.screened
    return f"all-pairs check:     {seconds:8.3f} s  ({verdict}, {pairs:,} pairs tested)"


# --- main -----------------------------------------------------------------------------------------


def _timed(label: str, action: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - started
    print(f"{label:<22}{seconds:8.3f} s")
    return result, seconds


def dry_run(root: Path, folder: Path) -> str:
    """The gardener's dry run over the folder, or why it could not run."""
    try:
        from dreamd.dream.gardener import run_dream
        from dreamd.dream.model import DreamRequest
    except ImportError as error:
        return f"full dry run:         skipped ({error})"
    request = DreamRequest(mode="dry-run", now=NOW, budget=17_408, only=(folder,))
    home = root / "home"
    home.mkdir(exist_ok=True)
    started = time.perf_counter()
    try:
        report = run_dream(request, env={}, home=home, state_dir=root / "state", sessions=[])
    except Exception as error:  # the gardener is still being written; report, don't crash
        return f"full dry run:         failed ({type(error).__name__}: {error})"
    seconds = time.perf_counter() - started
    verdict = "under" if seconds < 3 else "OVER"
    return f"full dry run:        {seconds:8.3f} s  ({verdict} the 3 s target; mode {report.mode})"


def main() -> None:
    parser_ = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser_.add_argument("files", type=int, nargs="?", default=10_000)
    parser_.add_argument("--keep", type=Path, help="generate into DIR and keep it")
    parser_.add_argument("--seed", type=int, default=7)
    parser_.add_argument("--verify", action="store_true", help="also run the all-pairs loop")
    args = parser_.parse_args()

    root = args.keep or Path(tempfile.mkdtemp(prefix="dreamd-dream-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        plans, planted, words = plan_folder(args.files, args.seed)
        folder = write_folder(root, plans, words)
        print(
            f"generated {len(plans):,} topic files in {folder} "
            f"({time.perf_counter() - started:.1f} s): {planted.duplicates} near-duplicates, "
            f"{planted.contradictions} reversals, {planted.stale} with only dead references"
        )
        loaded, _ = _timed("parsing:", lambda: load_folder(folder, folder.parent.parent))
        files = list(loaded.files)
        result, _ = _timed("similarity:", lambda: find_similar(files))
        comparisons = result.comparisons
        print(
            f"  pairs screened {comparisons.screened:,}, bodies compared "
            f"{comparisons.compared:,}, of {all_pairs_count(files):,} all pairs within types "
            f"({comparisons.share:.3%} screened)"
        )
        print(
            f"  found {len(result.duplicates)} duplicates (planted {planted.duplicates}), "
            f"{len(result.contradictions)} contradictions (planted {planted.contradictions})"
        )
        if args.verify:
            print(verify(files, result))
        print(dry_run(root, folder))
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
