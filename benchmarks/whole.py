"""Whole-process benchmark: every ``dreamd`` command as a user runs it, beside its baseline.

Usage::

    python benchmarks/whole.py [--sessions N] [--memories N] [--rounds R] [--keep DIR]
                               [--only NAME ...] [--growth] [--markdown] [--here]

Generates the data once (10,000 synthetic Claude Code sessions, a 50 MB
transcript, a folder of 10,000 memory files, a project folder of 3,000
collected items), then runs each command as a subprocess, interleaved with
the fastest honest baseline for the same work, ``--rounds`` times (default
5), and prints the medians, the ratio, the target and whether it is met:

=================  ==============================================  ==================
row                command                                         baseline / target
=================  ==============================================  ==================
startup            ``dreamd --help``, ``dreamd status``, no scan   ``python -c pass``; <= 0.15 s
first scan         ``sources list --json``, empty state            orjson parse; <= 1.5x
rescan             ``sources list --json``, nothing changed        <= 0.5x orjson, <= 3x stat loop
status, cached     ``dreamd status``, 10,000 sessions cached       ``python -c pass``; <= 0.15 s
service rescan     ``Catalog.scan`` again, in one process          stat loop in process; <= 2x
show               ``sources show`` of one 50 MB transcript        orjson parse; throughput >= 0.5x
dream              ``dream --dry-run`` over 10,000 memories        < 3 s
dream, recent      the same, every transcript touched this week    < 3.5 s
collect, big store ``collect --budget 3`` into 3,000 items         into an empty folder; <= 1.2x
collect, backlog   ``collect --budget 3``, 10,030 sessions waiting 130 waiting; <= 1.2x
collect, postgres  ``collect --budget 3`` into PostgreSQL          into SQLite; <= 1.3x
idle               ``dreamd run``, 4,000 files in 400 folders      RSS < 45 MB
idle, restarted    the same again, on the state the first left     RSS < 45 MB
=================  ==============================================  ==================

What is measured is dreamd as a user installs it: the checkout installed into
a virtual environment of its own, as ``pipx install .`` does (``user_install``;
``--here`` measures this environment's ``dreamd`` instead), with its bytecode
cached (``PYTHONDONTWRITEBYTECODE`` unset). The baselines run on that
environment's interpreter. CPU times are the children's user + system time.
``--growth`` also prints how the dream's time grows from 1,000 to 30,000 memory
files and a rescan's and a collect's from 100 to 10,000 sessions, with the
fitted exponent (only for the rows ``--only`` names).
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import dream as memories
import scan

CHECKOUT = Path(__file__).resolve().parent.parent
#: The interpreter and the ``dreamd`` measured: a user's install (``user_install``), or this
#: environment's with ``--here``.
PYTHON = sys.executable
DREAMD = shutil.which("dreamd", path=str(Path(sys.executable).parent)) or "dreamd"
PG_URL = os.environ.get("DREAMD_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")

#: A tiny program run as the baseline of each row (each reads ``sys.argv[1]``).
STAT_LOOP = """
import os, sys
def walk(path):
    with os.scandir(path) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path)
            else:
                entry.stat()
walk(sys.argv[1])
"""
PARSE_LINES = """
import os, sys, orjson
loads = orjson.loads
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".jsonl"):
            with open(os.path.join(folder, name), "rb") as handle:
                for line in handle:
                    loads(line)
"""


@dataclass
class Row:
    """One measured line of the table."""

    name: str
    value: float
    baseline: float | None
    target: str
    met: bool
    unit: str = "s"

    def line(self) -> str:
        base = f"{self.baseline:9.3f} {self.unit}" if self.baseline is not None else " " * 11
        ratio = f"{self.value / self.baseline:6.2f}x" if self.baseline else "       "
        verdict = "met" if self.met else "NOT MET"
        value = f"{self.value:9.3f} {self.unit}"
        return f"{self.name:<20}{value}  {base}  {ratio}  {self.target:<28}{verdict}"

    def markdown(self) -> str:
        """The row as a line of a Markdown table (``--markdown``), for the docs."""
        base = f"{self.baseline:.3f} {self.unit}" if self.baseline is not None else "—"
        ratio = f"{self.value / self.baseline:.2f}x" if self.baseline else "—"
        verdict = "met" if self.met else "**not met**"
        target = self.target.replace("<=", "≤").replace(">=", "≥")
        value = f"{self.value:.3f} {self.unit}"
        return f"| {self.name} | {value} | {base} | {ratio} | {target} | {verdict} |"


def conditions() -> str:
    """Where and how loaded the machine was: the numbers mean little without it."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load average {load} "
        f"(1, 5, 15 min)"
    )


# --- running things ---------------------------------------------------------------------------


def environment(home: Path) -> dict[str, str]:
    """The process environment of a user whose home is ``home`` (bytecode cached)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("XDG_", "DREAMD_", "CLAUDE_", "CODEX_", "PI_", "JOURNAL_"))
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["HOME"] = str(home)
    return env


def timed(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run; output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def interleaved(rounds: int, *runs: Callable[[], float]) -> list[float]:
    """Median of each run over ``rounds`` rounds, the runs taking turns within a round."""
    samples: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for index, run in enumerate(runs):
            samples[index].append(run())
    return [statistics.median(s) for s in samples]


def python(code: str, *args: str, env: dict[str, str]) -> float:
    return timed([PYTHON, "-c", code, *args], env)[0]


def dreamd(env: dict[str, str], *args: str, cpu: bool = False) -> float:
    wall, used = timed([DREAMD, *args], env)
    return used if cpu else wall


def fresh_state(home: Path) -> None:
    """Forget everything dreamd knows (its state DB and caches), keep the transcripts."""
    shutil.rmtree(home / ".local" / "share" / "dreamd", ignore_errors=True)


# --- data -------------------------------------------------------------------------------------


def write_config(home: Path, text: str = "") -> None:
    config = home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[collect]\nschedule = "0 0 1 1 *"\n[dream]\nschedule = "0 0 1 1 *"\n' + text)


def session_home(root: Path, name: str, sessions: int, *, recent: bool = False) -> Path:
    """A HOME with ``sessions`` generated transcripts (last written before this week unless
    ``recent``)."""
    home = root / name
    if not home.exists():
        paths = scan.generate(home, sessions, seed=11)
        if recent:
            now = time.time()
            for index, path in enumerate(paths):
                os.utime(path, (now - 3600 - index, now - 3600 - index))
        write_config(home)
    return home


def big_transcript(root: Path, megabytes: int = 50) -> tuple[Path, str]:
    """A HOME holding one Claude Code session of about ``megabytes`` MB; its session id."""
    home = root / "big"
    sid = "0b16b16b-0000-4000-8000-000000000050"
    folder = home / ".claude" / "projects" / "-home-user-src-big"
    path = folder / f"{sid}.jsonl"
    if not path.exists():
        folder.mkdir(parents=True)
        import random

        rng = random.Random(5)
        start = datetime(2026, 1, 1, tzinfo=UTC)
        with path.open("w", encoding="utf-8") as handle:
            while handle.tell() < megabytes * 2**20:
                for record in scan.session_records(rng, sid, "/home/user/src/big", start):
                    handle.write(json.dumps(record, separators=(",", ":")) + "\n")
                start += timedelta(hours=1)
        os.utime(path, (start.timestamp(), start.timestamp()))
        write_config(home)
    return home, sid


def memory_home(root: Path, files: int, *, recent_transcripts: Path | None = None) -> Path:
    """A HOME whose one Claude Code project has a memory folder of ``files`` topic files."""
    home = root / f"memories-{files}" if recent_transcripts is None else root / "memories-recent"
    if home.exists():
        return home
    if recent_transcripts is not None:
        shutil.copytree(recent_transcripts, home, symlinks=True)
    plans, _, words = memories.plan_folder(files, seed=7)
    folder = memories.write_folder(home / "work", plans, words)
    target = home / ".claude" / "projects" / "-bench-memories" / "memory"
    target.parent.mkdir(parents=True, exist_ok=True)
    folder.rename(target)
    write_config(home)
    return home


def collect_home(root: Path, name: str, *, items: int, waiting: int) -> Path:
    """A HOME with ``waiting`` finished sessions of one project whose memory folder already
    holds ``items`` collected items."""
    home = root / name
    if home.exists():
        return home
    project = "/home/user/src/app"
    folder = home / ".claude" / "projects" / "-home-user-src-app"
    folder.mkdir(parents=True)
    start = time.time() - 30 * 86400
    for index in range(waiting):
        sid = str(uuid.UUID(int=index + 1))
        lines = []
        for turn in range(6):
            stamp = datetime.fromtimestamp(start + index * 60 + turn, UTC).isoformat()
            base = {"sessionId": sid, "cwd": project, "isSidechain": False, "timestamp": stamp}
            prompt = f"From now on always run the linter {index} before committing step {turn}."
            lines.append(
                {
                    **base,
                    "type": "user",
                    "uuid": f"u{turn}",
                    "message": {"role": "user", "content": prompt},
                }
            )
            lines.append({**base, "type": "assistant", "uuid": f"a{turn}",
                          "message": {"id": f"m{index}-{turn}", "role": "assistant",
                                      "content": [{"type": "text", "text": "Done."}]}})  # fmt: skip
        path = folder / f"{sid}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        os.utime(path, (start + index * 60 + 600, start + index * 60 + 600))
    inbox = folder / "memory" / ".inbox"
    inbox.mkdir(parents=True)
    for index in range(items):
        (inbox / f"feedback_rule-{index}.md").write_text(_item_file(index))
    write_config(home)
    return home


def _item_file(index: int) -> str:
    quote = f"claude-code:bench:seed-{index}:m1"
    return (
        f"---\nname: Rule {index}\ndescription: rule {index}\ntype: feedback\nmetadata:\n"
        f"  source: source:claude-code:bench:seed-{index}\n  collected: 2026-11-01\n"
        f"  op_key: seed-{index:06d}\n  confidence: 0.9\n  category: Preference\n"
        f"  project: /home/user/src/app\n  quotes:\n  - message: {quote}\n"
        f"    text: rule number {index}\n---\nRule number {index} of the big folder.\n"
    )


# --- the rows ---------------------------------------------------------------------------------


def startup_rows(home: Path, rounds: int) -> list[Row]:
    env = environment(home)
    fresh_state(home)  # the same whether or not ``--keep`` kept an earlier run's state
    dreamd(env, "status")  # a state DB exists, as it does for users
    bare, help_, status = interleaved(
        rounds,
        lambda: python("pass", env=env),
        lambda: dreamd(env, "--help"),
        lambda: dreamd(env, "status"),
    )
    return [
        Row("startup --help", help_, bare, "<= 0.15 s", help_ <= 0.15),
        Row("startup status", status, bare, "<= 0.15 s", status <= 0.15),
    ]


def scan_rows(home: Path, rounds: int) -> list[Row]:
    env = environment(home)
    projects = str(home / ".claude" / "projects")

    def first() -> float:
        fresh_state(home)
        return dreamd(env, "sources", "list", "--json")

    parse, stat, first_scan = interleaved(
        rounds,
        lambda: python(PARSE_LINES, projects, env=env),
        lambda: python(STAT_LOOP, projects, env=env),
        first,
    )
    dreamd(env, "sources", "list", "--json")
    bare, rescan, status = interleaved(
        rounds,
        lambda: python("pass", env=env),
        lambda: dreamd(env, "sources", "list", "--json"),
        lambda: dreamd(env, "status"),
    )
    return [
        Row("first scan", first_scan, parse, "<= 1.5x orjson parse", first_scan <= 1.5 * parse),
        Row("rescan vs parse", rescan, parse, "<= 0.5x orjson parse", rescan <= 0.5 * parse),
        Row("rescan vs stat", rescan, stat, "<= 3x stat loop", rescan <= 3 * stat),
        Row("status, cached", status, bare, "<= 0.15 s", status <= 0.15),
    ]


SERVICE_RESCAN = """
import os, sys, time, statistics
from pathlib import Path
from dreamd.catalog import Catalog
from dreamd.config import load_settings
from dreamd.statedb import open_state
settings = load_settings()
catalog = Catalog(open_state(settings.state_db), settings.source_roots)
catalog.scan()
def walk(path):
    with os.scandir(path) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path)
            else:
                entry.stat()
scans, stats = [], []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); catalog.scan(); scans.append(time.perf_counter() - t)
    t = time.perf_counter(); walk(sys.argv[1]); stats.append(time.perf_counter() - t)
print(statistics.median(scans), statistics.median(stats))
"""


def service_row(home: Path, rounds: int) -> Row:
    env = environment(home)
    projects = str(home / ".claude" / "projects")
    out = subprocess.run(
        [PYTHON, "-c", SERVICE_RESCAN, projects, str(rounds)],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.splitlines()[-1].split()  # fmt: skip
    scanned, stat = float(out[0]), float(out[1])
    return Row("service rescan", scanned, stat, "<= 2x stat loop", scanned <= 2 * stat)


def show_row(root: Path, rounds: int) -> Row:
    home, sid = big_transcript(root)
    env = environment(home)
    folder = str(home / ".claude" / "projects")
    dreamd(env, "sources", "list", "--json")
    parse, show = interleaved(
        rounds,
        lambda: python(PARSE_LINES, folder, env=env),
        lambda: dreamd(env, "sources", "show", f"claude-code:{sid}", "--json"),
    )
    return Row("show 50 MB", show, parse, "throughput >= 0.5x parse", show <= 2 * parse)


def dream_rows(root: Path, files: int, recent: Path, rounds: int) -> list[Row]:
    rows = []
    for label, home, limit in (
        ("dream dry run", memory_home(root, files), 3.0),
        ("dream, recent", memory_home(root, files, recent_transcripts=recent), 3.5),
    ):
        env = environment(home)
        dreamd(env, "sources", "list", "--json")  # the catalog knows the sessions, as at night
        (seconds,) = interleaved(rounds, lambda env=env: dreamd(env, "dream", "--dry-run"))
        rows.append(Row(label, seconds, None, f"< {limit} s", seconds < limit))
    return rows


def _collect_once(template: Path, scratch: Path, extra: str = "", *, warm: bool = False) -> float:
    """CPU seconds of one ``collect --budget 3`` in a fresh copy of ``template``.

    ``warm``: an untimed ``collect --budget 3`` runs first in the copy, so the
    state DB knows the sessions and the store's files as it does on a user's
    machine, where the previous collect (or the service's scan) ran (a copy
    gives every file a new inode, which neither cache rightly trusts).
    """
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(template, scratch, symlinks=True)
    if extra:
        write_config(scratch, extra)
    env = environment(scratch)
    if warm:
        dreamd(env, "collect", "--budget", "3")
    return dreamd(env, "collect", "--budget", "3", cpu=True)


def collect_rows(root: Path, sessions: int, rounds: int, *, postgres: bool) -> list[Row]:
    big = collect_home(root, "collect-big", items=3000, waiting=6)
    empty = collect_home(root, "collect-empty", items=0, waiting=6)
    backlog = collect_home(root, "collect-backlog", items=0, waiting=sessions + 30)
    small = collect_home(root, "collect-small", items=0, waiting=130)
    scratch = root / "scratch"
    into_big, into_empty, long_wait, short_wait = interleaved(
        rounds,
        lambda: _collect_once(big, scratch, warm=True),
        lambda: _collect_once(empty, scratch, warm=True),
        lambda: _collect_once(backlog, scratch, warm=True),
        lambda: _collect_once(small, scratch, warm=True),
    )
    rows = [
        Row(
            "collect, big store",
            into_big,
            into_empty,
            "<= 1.2x empty",
            into_big <= 1.2 * into_empty,
        ),
        Row(
            "collect, backlog",
            long_wait,
            short_wait,
            "<= 1.2x 130 waiting",
            long_wait <= 1.2 * short_wait,
        ),
    ]
    if postgres:
        rows.append(_postgres_row(empty, scratch, rounds))
    return rows


def _postgres_row(empty: Path, scratch: Path, rounds: int) -> Row:
    def into_postgres() -> float:
        _drop_tables()
        return _collect_once(empty, scratch, f'[stores.sql]\nurl = "{PG_URL}"\n', warm=True)

    pg, lite = interleaved(rounds, into_postgres, lambda: _collect_once(empty, scratch, warm=True))
    return Row("collect, postgres", pg, lite, "<= 1.3x SQLite", pg <= 1.3 * lite)


DROP_TABLES = """
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as connection:
    for table in ("memory_item", "dreamd_schema", "dreamd_lease"):
        connection.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
"""


def _drop_tables() -> None:
    """Empty the shared store, with the measured install's driver (its ``postgres`` extra)."""
    subprocess.run([PYTHON, "-c", DROP_TABLES, PG_URL], check=True)


def idle_rows(root: Path) -> list[Row]:
    """RSS of ``dreamd run`` 15 s after its start on a new home (it reads every session),
    then after a restart on the state that start left (it loads the session cache), as
    after every reboot."""
    home = root / "idle"
    if not home.exists():
        sys.path.insert(0, str(Path(__file__).parent))
        import idle

        idle.lay_out(home, 4000)
    env = environment(home)
    fresh_state(home)
    first = _idle_rss(env)
    restarted = _idle_rss(env)
    bare = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(5)"])
    time.sleep(1)
    baseline = _rss_mib(bare.pid)
    bare.kill()
    bare.wait()
    return [
        Row("idle RSS", first, baseline, "< 45 MB", first < 45, unit="MB"),
        Row("idle RSS, restarted", restarted, baseline, "< 45 MB", restarted < 45, unit="MB"),
    ]


def _idle_rss(env: dict[str, str]) -> float:
    process = subprocess.Popen(
        [DREAMD, "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        time.sleep(15)
        return _rss_mib(process.pid)
    finally:
        process.terminate()
        process.wait(30)


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- growth -----------------------------------------------------------------------------------


def exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """The slope of log(time) over log(size): 1 is linear, 2 quadratic."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, 1e-6)) for t in seconds]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    num = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    return num / sum((x - mean_x) ** 2 for x in xs)


def growth(root: Path, rounds: int, wanted: set[str]) -> list[str]:
    """Growth lines for the wanted rows: the dream over memory files; a rescan and a collect
    (warm, as after the previous one) over sessions."""
    lines = []
    if "dream" in wanted:
        sizes = [1000, 3000, 10000, 30000]
        times = []
        for files in sizes:
            env = environment(memory_home(root, files))
            (seconds,) = interleaved(rounds, lambda env=env: dreamd(env, "dream", "--dry-run"))
            times.append(seconds)
        lines.append(_growth_line("dream dry run, memory files", sizes, times))
    counts = [100, 1000, 10000]
    rescans, collects = [], []
    for count in counts:
        if "scan" in wanted:
            env = environment(session_home(root, f"sessions-{count}", count))
            dreamd(env, "sources", "list", "--json")
            (seconds,) = interleaved(
                rounds, lambda env=env: dreamd(env, "sources", "list", "--json")
            )
            rescans.append(seconds)
        if "collect" in wanted:
            template = collect_home(root, f"collect-{count}", items=0, waiting=count)
            (cpu,) = interleaved(
                rounds, lambda t=template: _collect_once(t, root / "scratch", warm=True)
            )
            collects.append(cpu)
    if rescans:
        lines.append(_growth_line("rescan, sessions", counts, rescans))
    if collects:
        lines.append(_growth_line("collect (3 taken), sessions waiting", counts, collects))
    return lines


def _growth_line(label: str, sizes: Sequence[int], times: Sequence[float]) -> str:
    points = ", ".join(f"{n:,}: {t:.3f} s" for n, t in zip(sizes, times, strict=True))
    return f"{label:<38} {points}  (exponent {exponent(sizes, times):.2f})"


# --- main -------------------------------------------------------------------------------------


def user_install(root: Path) -> tuple[str, str]:
    """This checkout installed as the README's "Install for good" installs it (pipx, ``uv
    tool`` or a wheel: a virtual environment of its own, the package copied in and its
    bytecode compiled), under ``root``; its interpreter and its ``dreamd``.

    Not the checkout's editable install: that one puts a finder on every start-up
    (``__editable__`` in ``site``), which no user's install has. The environment is
    made once (``--keep`` reuses it) and the package installed again on every run, so
    it is always the checkout's code. ``orjson`` is the baselines' parser.
    """
    venv = root / "user-install"
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([*pip, f"{CHECKOUT}[postgres,bench]"], check=True)
    else:
        subprocess.run([*pip, "--no-deps", "--force-reinstall", str(CHECKOUT)], check=True)
    return str(python), str(venv / "bin" / "dreamd")


def compile_here() -> None:
    """``--here``: cache this environment's bytecode once, as a user's machine has it."""
    import dreamd

    for module in (
        dreamd,
        __import__("dreamd.readers").readers,
        __import__("dreamd.stores").stores,
    ):
        compileall.compile_dir(str(Path(module.__file__).parent), quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="generate into DIR and keep it (reused)")
    parser.add_argument("--only", nargs="*", help="rows to run: startup scan service show "
                        "dream collect postgres idle")  # fmt: skip
    parser.add_argument("--growth", action="store_true", help="also print the growth exponents "
                        "(of the rows --only names)")  # fmt: skip
    parser.add_argument("--here", action="store_true", help="measure this environment's "
                        "dreamd (the checkout's editable one) instead of a user's")  # fmt: skip
    parser.add_argument("--markdown", action="store_true", help="also print the table as "
                        "Markdown, with the machine's load, for docs/performance.md")  # fmt: skip
    args = parser.parse_args(argv)
    wanted = set(
        args.only or ["startup", "scan", "service", "show", "dream", "collect", "postgres", "idle"]
    )
    root = args.keep or Path(tempfile.mkdtemp(prefix="dreamd-whole-"))
    root.mkdir(parents=True, exist_ok=True)
    global PYTHON, DREAMD
    if args.here:
        compile_here()
    else:
        PYTHON, DREAMD = user_install(root)
    rows: list[Row] = []
    try:
        started = time.perf_counter()
        if wanted & {"startup", "scan", "service"}:
            sessions = session_home(root, "sessions", args.sessions)
        if "dream" in wanted:
            recent = session_home(root, "recent", args.sessions, recent=True)
        print(f"data ready in {time.perf_counter() - started:.0f} s under {root}", flush=True)
        print(f"before: {conditions()}", flush=True)
        if "startup" in wanted:
            rows += startup_rows(sessions, args.rounds)
        if "scan" in wanted:
            rows += scan_rows(sessions, args.rounds)
        if "service" in wanted:
            rows.append(service_row(sessions, args.rounds))
        if "show" in wanted:
            rows.append(show_row(root, args.rounds))
        if "dream" in wanted:
            rows += dream_rows(root, args.memories, recent, args.rounds)
        if "collect" in wanted:
            rows += collect_rows(root, args.sessions, args.rounds, postgres="postgres" in wanted)
        if "idle" in wanted:
            rows.extend(idle_rows(root))
        print(f"\n{'row':<20}{'dreamd':>11}  {'baseline':>11}  {'ratio':>7}  {'target':<28}")
        for row in rows:
            print(row.line())
        print(f"after: {conditions()}")
        if args.markdown:
            print("\n| row | dreamd | baseline | ratio | target | |\n|---|---|---|---|---|---|")
            for row in rows:
                print(row.markdown())
        if args.growth:
            print()
            for line in growth(root, max(1, args.rounds // 2), wanted):
                print(line)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if all(row.met for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
