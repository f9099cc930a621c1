"""Seed 000 STEPs 3 and 4: significant words, same subject, negation, duplicates, contradictions."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import timedelta
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamd.dream.folder.ages import age_of, ages_of, newer_of
from dreamd.dream.folder.cues import NEGATION_PAIRS, cue_objects, negation_signal, signal_between
from dreamd.dream.folder.pairsearch import (
    all_pairs_count,
    candidate_pairs,
    nesting_pairs,
    signal_pairs,
)
from dreamd.dream.folder.similarity import (
    Pair,
    age_key,
    find_contradictions,
    find_duplicates,
    find_similar,
    is_contradiction_overlap,
    is_duplicate_overlap,
)
from dreamd.dream.folder.subjects import name_words, same_subject
from dreamd.dream.folder.words import STOPWORDS, overlap_ratio, significant_words
from dreamd.dream.model import MemoryFile, MemoryType
from tests.conftest import SHARED_FIXTURES
from tests.dream.factories import memory

DESCRIPTION = "Cache policy for the nightly build server runners"


def words(prefix: str, count: int) -> list[str]:
    """``count`` distinct significant words, e.g. ``sharedword00000``."""
    return [f"{prefix}word{k:05d}" for k in range(count)]


def body(*parts: Sequence[str] | str) -> str:
    """A body from sentences and word lists, one paragraph each."""
    return "\n\n".join(p if isinstance(p, str) else " ".join(p) + "." for p in parts)


def pair_of(shared: int, own: int) -> tuple[str, str]:
    """Two bodies of ``shared + own`` significant words each, ``shared`` of them common."""
    common = words("shared", shared)
    return body(common, words("left", own)), body(common, words("right", own))


def names(pairs: Sequence[Pair]) -> list[tuple[str, str]]:
    return [(p.older.name, p.newer.name) for p in pairs]


class TestSignificantWords:
    def test_lowercases_and_drops_stopwords_and_short_words(self) -> None:
        """The seed's rule: lowercase, no stopword, only words longer than two characters."""
        assert significant_words("The API is in a Cache and it was OK") == {"api", "cache"}

    def test_three_characters_is_long_enough(self) -> None:
        """A word of exactly three characters counts; two does not."""
        assert significant_words("abc ab") == {"abc"}

    def test_punctuation_around_a_word_is_stripped(self) -> None:
        """Markdown and sentence punctuation around a word do not make a new word."""
        text = "**Why:** (retry), `cache`. [[stem_name]] “quoted” — done…"
        assert significant_words(text) == {"why", "retry", "cache", "stem_name", "quoted", "done"}

    def test_punctuation_inside_a_word_is_kept(self) -> None:
        """Paths, contractions and snake_case stay whole."""
        assert significant_words("don't touch src/app.ts or load_all") == {
            "don't",
            "touch",
            "src/app.ts",
            "load_all",
        }

    def test_typographic_apostrophe_reads_as_ascii(self) -> None:
        """A typographic apostrophe (U+2019) reads as an ASCII one."""
        assert significant_words("don\u2019t") == significant_words("don't") == {"don't"}

    def test_stopwords_wrapped_in_punctuation_are_still_stopwords(self) -> None:
        """``(the)`` and ``not,`` are stopwords once unwrapped."""
        assert significant_words("(the) not, THAT!") == frozenset()

    def test_every_seed_stopword_is_dropped(self) -> None:
        """The seed's whole stopword list, and nothing else, is dropped."""
        assert significant_words(" ".join(STOPWORDS)) == frozenset()
        assert "these" in significant_words("these")


class TestOverlapRatio:
    def test_shared_words_over_the_smaller_set(self) -> None:
        """The denominator is the smaller set, so a subset overlaps fully."""
        assert overlap_ratio(frozenset("abcde"), frozenset("ab")) == 1.0
        assert overlap_ratio(frozenset("abcde"), frozenset("abcxyz")) == 0.6

    def test_empty_set_gives_zero(self) -> None:
        """An empty side never overlaps."""
        assert overlap_ratio(frozenset(), frozenset("ab")) == 0.0
        assert overlap_ratio(frozenset("ab"), frozenset()) == 0.0

    def test_duplicate_threshold_is_exact(self) -> None:
        """0.6 exactly is a duplicate overlap; 0.5999 is not."""
        assert is_duplicate_overlap(3, 5)
        assert is_duplicate_overlap(6000, 10000)
        assert not is_duplicate_overlap(5999, 10000)

    def test_contradiction_range_is_from_04_up_to_06(self) -> None:
        """0.4 is in the contradiction range, 0.3999 and 0.6 are not, 0.5999 is."""
        assert is_contradiction_overlap(2, 5)
        assert not is_contradiction_overlap(3999, 10000)
        assert is_contradiction_overlap(5999, 10000)
        assert not is_contradiction_overlap(3, 5)

    def test_empty_sets_are_in_no_range(self) -> None:
        """No words: neither a duplicate nor a contradiction overlap."""
        assert not is_duplicate_overlap(0, 0)
        assert not is_contradiction_overlap(0, 0)


class TestSameSubject:
    def test_nested_slugs_are_the_same_subject(self) -> None:
        """A slug whose words are all in the other's names the same concept."""
        a = memory("feedback_cover_letter_quality.md", title="")
        b = memory("feedback_resume_cover_letter_quality_2026-03-26.md", title="")
        assert same_subject(a, b)

    def test_sibling_slugs_are_different_subjects(self) -> None:
        """Sharing most words is not nesting: ``breaker_builder`` is not ``wall_builder``."""
        a = memory("breaker_builder_spawn_pattern.md", title="")
        b = memory("wall_builder_spawn_pattern.md", title="")
        assert not same_subject(a, b)

    def test_one_word_slug_nests_in_nothing(self) -> None:
        """A one-word name is too broad; two words are enough."""
        assert not same_subject(memory("notes.md", title=""), memory("notes_cache.md", title=""))
        assert same_subject(
            memory("cache_notes.md", title=""), memory("cache_notes_server.md", title="")
        )

    def test_type_words_and_stopwords_do_not_count(self) -> None:
        """``feedback_`` prefixes and ``the`` are not part of the subject."""
        assert name_words("feedback_the_Cache-Policy") == {"cache", "policy"}
        a = memory("feedback_the_cache_policy.md", title="")
        b = memory("cache_policy.md", title="")
        assert same_subject(a, b)

    def test_dated_logs_of_different_days_differ(self) -> None:
        """Numbers stay in the name, so two days' logs are two subjects."""
        a = memory("project_session_2026-03-25.md", title="")
        b = memory("project_session_2026-03-28.md", title="")
        assert not same_subject(a, b)

    def test_front_matter_names_nest(self) -> None:
        """Titles nest even when slugs do not."""
        a = memory("a1.md", title="Cover letter quality")
        b = memory("b2.md", title="Resume and cover letter quality rules")
        assert same_subject(a, b)

    def test_missing_title_matches_nothing(self) -> None:
        """An empty front matter ``name`` does not nest in every other title."""
        a = memory("a1.md", title="")
        b = memory("b2.md", title="Cover letter quality")
        assert not same_subject(a, b)

    def test_descriptions_at_08_overlap_are_the_same_subject(self) -> None:
        """Four of five description words shared (0.8) is enough; three of four (0.75) is not."""
        a = memory("a1.md", title="", description="alpha bravo charlie delta echo")
        b = memory("b2.md", title="", description="alpha bravo charlie delta foxtrot")
        assert same_subject(a, b)
        c = memory("c3.md", title="", description="alpha bravo charlie foxtrot")
        d = memory("d4.md", title="", description="alpha bravo charlie golf")
        assert not same_subject(c, d)

    def test_one_shared_word_is_never_a_subject(self) -> None:
        """Two identical one-word descriptions are not enough to name one subject."""
        a = memory("a1.md", title="", description="cache")
        b = memory("b2.md", title="", description="Cache")
        assert not same_subject(a, b)

    @pytest.mark.parametrize(
        ("left", "right"),
        [
            ("Deploy key rotation schedule", "Deploy-key rotation plan"),
            ("CI runner image", "CI runner image choice"),
            ("db migration notes", "Database migrations"),
            ("cfg loader", "Config loader"),
            ("cache policy", "cache policy"),
        ],
    )
    def test_near_identical_short_descriptions_name_one_subject(
        self, left: str, right: str
    ) -> None:
        """Hyphens, plurals, abbreviations and kind-of-note words do not tell subjects apart."""
        a = memory("a1.md", title="", description=left)
        b = memory("b2.md", title="", description=right)
        assert same_subject(a, b)

    @pytest.mark.parametrize(
        ("left", "right"),
        [
            ("Wall builder spawn pattern", "Breaker builder spawn pattern"),
            ("CI runner image", "CI runner cache"),
            (
                "Typestate builder, LivesSetting, ClampRange, BreakerDefinition 35+ fields, "
                "Visual dimension — all approved, no design constraints",
                "Typestate builder, WallDefinition RON, WallRegistry, WallSize removal, "
                "per-side definitions, Visible/Invisible visual dimension — all approved, "
                "no design constraints",
            ),
        ],
    )
    def test_templated_descriptions_stay_apart(self, left: str, right: str) -> None:
        """A differing subject word keeps two templated descriptions apart (the 80 % reason)."""
        a = memory("a1.md", title="", description=left)
        b = memory("b2.md", title="", description=right)
        assert not same_subject(a, b)


class TestNegationSignal:
    @pytest.mark.parametrize(
        ("positive", "negative", "expected"),
        [
            ("Do run the migrations by hand.", "Do not run the migrations by hand.", 0),
            ("Do run the migrations by hand.", "Don't run the migrations by hand.", 1),
            ("Use pnpm for installs.", "Avoid pnpm for installs.", 2),
            ("Use pnpm for installs.", "Stop using pnpm for installs.", 3),
            ("Prefer tabs for indentation.", "Don't prefer tabs for indentation.", 4),
            ("Always use pnpm for installs.", "Never use pnpm for installs.", 5),
        ],
    )
    def test_each_seed_pair_is_found_in_either_order(
        self, positive: str, negative: str, expected: int
    ) -> None:
        """Every pair of the seed's table, whichever body holds the positive form."""
        assert negation_signal(positive, negative) == NEGATION_PAIRS[expected]
        assert negation_signal(negative, positive) == NEGATION_PAIRS[expected]

    def test_different_objects_give_no_signal(self) -> None:
        """ "Always use tabs" does not contradict "never use spaces"."""
        assert negation_signal("Always use tabs.", "Never use spaces.") is None

    def test_agreeing_negatives_give_no_signal(self) -> None:
        """``do not X`` is not also a positive ``do``: two prohibitions agree."""
        assert negation_signal("Do not commit secrets.", "Do not commit secrets.") is None
        assert negation_signal("Never use pnpm.", "Avoid pnpm.") is None

    def test_a_cue_starts_a_word(self) -> None:
        """``use`` inside ``because`` is no claim."""
        assert negation_signal("It fails because pnpm locks.", "Avoid pnpm locks.") is None

    def test_a_negated_positive_is_not_a_claim(self) -> None:
        """``not always X`` does not claim X."""
        assert negation_signal("Not always deploy fridays.", "Never deploy fridays.") is None

    def test_a_claim_ends_with_its_clause(self) -> None:
        """Words after a full stop or a line end are not the cue's object."""
        assert negation_signal("Always use the cache. Tabs are fine.", "Never use tabs.") is None
        assert negation_signal("Always use the cache\ntabs", "Never use tabs.") is None

    def test_object_is_the_next_three_significant_words(self) -> None:
        """The fourth word after a cue is outside its object."""
        assert cue_objects("Always use alpha beta gamma delta.") == {
            "always ": (frozenset({"alpha", "beta", "gamma"}),),
            "use ": (frozenset({"alpha", "beta", "gamma"}),),
        }
        assert negation_signal("Always use alpha beta gamma delta.", "Never use delta.") is None

    def test_objects_share_two_words_or_all_of_the_shorter(self) -> None:
        """One shared word is enough only when an object has one word."""
        assert negation_signal("Always use pnpm.", "Never use pnpm for scripts.") is not None
        assert negation_signal("Always run tests before commit.", "Never commit secrets.") is None
        assert negation_signal("Always run tests first.", "Never run tests twice.") is not None

    def test_spacing_and_apostrophes_are_normalised(self) -> None:
        """Extra spaces inside a cue and a typographic apostrophe still match."""
        assert negation_signal("Do  run migrations.", "Don\u2019t   run migrations.") == (
            "do ",
            "don't ",
        )


class TestDuplicates:
    def test_overlap_of_exactly_06_with_same_subject_is_a_duplicate(self) -> None:
        """3 of 5 words shared: the older is pruned in favour of the newer."""
        left, right = pair_of(3, 2)
        old = memory("cache_policy.md", body=left, age=timedelta(days=40))
        new = memory("cache_policy_v2.md", body=right, age=timedelta(days=10))
        [pair] = find_duplicates([old, new])
        assert (pair.older, pair.newer, pair.kind, pair.signal) == (old, new, "duplicate", None)
        assert pair.ratio == 0.6

    def test_overlap_of_05999_is_not_a_duplicate(self) -> None:
        """5,999 of 10,000 words shared stays below the threshold."""
        left, right = pair_of(5999, 4001)
        old = memory("cache_policy.md", body=left, age=timedelta(days=40))
        new = memory("cache_policy_v2.md", body=right, age=timedelta(days=10))
        assert find_duplicates([old, new]) == []
        left, right = pair_of(6000, 4000)
        old = memory("cache_policy.md", body=left, age=timedelta(days=40))
        new = memory("cache_policy_v2.md", body=right, age=timedelta(days=10))
        assert names(find_duplicates([old, new])) == [("cache_policy.md", "cache_policy_v2.md")]

    def test_identical_bodies_of_different_subjects_are_kept(self) -> None:
        """Body overlap alone never prunes."""
        text = body(words("same", 20))
        a = memory("breaker_builder.md", body=text, age=timedelta(days=40))
        b = memory("wall_builder.md", body=text, age=timedelta(days=10))
        assert find_duplicates([a, b]) == []

    def test_different_types_never_pair(self) -> None:
        """A feedback and a project memory are never duplicates."""
        text = body(words("same", 20))
        a = memory("cache_policy.md", type="feedback", body=text, age=timedelta(days=40))
        b = memory("cache_policy_v2.md", type="project", body=text, age=timedelta(days=10))
        assert find_duplicates([a, b]) == []

    def test_memories_without_type_never_pair(self) -> None:
        """No front matter type: nothing to compare, nothing pruned."""
        text = body(words("same", 20))
        a = memory("cache_policy.md", type=None, body=text, age=timedelta(days=40))
        b = memory("cache_policy_v2.md", type=None, body=text, age=timedelta(days=10))
        assert find_similar([a, b]).duplicates == ()

    def test_the_newer_is_kept_whatever_the_input_order(self) -> None:
        """Keep the newer by mtime, even when it is listed first or has the shorter name."""
        text = body(words("same", 20))
        new = memory("cache_policy.md", body=text, age=timedelta(days=1))
        old = memory("cache_policy_v2.md", body=text, age=timedelta(days=90))
        assert names(find_duplicates([new, old])) == [("cache_policy_v2.md", "cache_policy.md")]
        assert names(find_duplicates([old, new])) == [("cache_policy_v2.md", "cache_policy.md")]

    def test_equal_mtimes_are_never_decided_by_name(self) -> None:
        """On an mtime tie with no other evidence nothing is pruned: both kept and flagged."""
        text = body(words("same", 20))
        a = memory("cache_policy_a.md", body=text, description=DESCRIPTION)
        b = memory("cache_policy_b.md", body=text, description=DESCRIPTION)
        result = find_similar([b, a])
        assert result.duplicates == ()
        assert [(p.older.name, p.newer.name) for p in result.undecided] == [
            ("cache_policy_a.md", "cache_policy_b.md")
        ]

    def test_equal_mtimes_are_decided_by_a_date_the_memory_carries(self) -> None:
        """A front matter date or a date in the name tells the newer on an mtime tie."""
        text = body(words("same", 20))
        a = memory("cache_policy_2026-03-20.md", body=text, description=DESCRIPTION)
        b = memory("cache_policy_2026-01-02.md", body=text, description=DESCRIPTION)
        assert names(find_duplicates([a, b])) == [
            ("cache_policy_2026-01-02.md", "cache_policy_2026-03-20.md")
        ]
        c, d = (
            replace(
                memory(f"cache_policy_{n}.md", body=text, description=DESCRIPTION),
                front_matter={"date": day},
            )
            for n, day in (("z", "2025-01-01"), ("y", "2025-06-01"))
        )
        assert names(find_duplicates([c, d])) == [("cache_policy_z.md", "cache_policy_y.md")]

    def test_git_mode_keeps_the_later_committed_memory(self) -> None:
        """Seed 001: in a git-managed folder the later commit is newer, whatever the mtimes."""
        text = body(words("same", 20))
        a = memory("cache_policy.md", body=text, age=timedelta(days=1))
        b = memory("cache_policy_v2.md", body=text, age=timedelta(days=90))
        ages = ages_of({"cache_policy.md": a, "cache_policy_v2.md": b}, {
            "cache_policy.md": 1_000.0, "cache_policy_v2.md": 2_000.0
        })  # fmt: skip
        assert names(find_similar([a, b], ages=ages).duplicates) == [
            ("cache_policy.md", "cache_policy_v2.md")
        ]
        assert names(find_duplicates([a, b])) == [("cache_policy_v2.md", "cache_policy.md")]

    def test_a_large_distinct_document_is_no_duplicate_of_a_small_one(self) -> None:
        """0.67 of the small note's words, 0.15 of the large one's: flagged, never pruned."""
        common = words("shared", 129)
        small = memory(
            "protocol_brainstorm.md", body=body(common, words("small", 64)), age=timedelta(1)
        )
        large = memory(
            "protocol_brainstorm_r2.md",
            body=body(common, words("large", 746)),
            age=timedelta(days=60),
        )
        result = find_similar([small, large])
        assert result.duplicates == ()
        assert [(p.older.name, p.newer.name) for p in result.one_way] == [
            ("protocol_brainstorm_r2.md", "protocol_brainstorm.md")
        ]

    def test_chain_prunes_the_middle_and_keeps_an_unrelated_oldest(self) -> None:
        """A ~ B ~ C but not A ~ C: B goes into C, A stays (newest first)."""
        x, y, z = words("x", 5), words("y", 2), words("z", 2)
        chain = [(x, 90), (x[2:] + y, 60), (x[4:] + y + z, 30)]
        a, b, c = (
            memory(f"cache_policy_{n}.md", body=body(w), description=DESCRIPTION, age=timedelta(d))
            for n, (w, d) in zip("abc", chain, strict=True)
        )
        ratio = overlap_ratio(significant_words(a.body), significant_words(c.body))
        assert (ratio, find_similar([a, b]).duplicates[0].ratio) == (0.2, 0.6)
        assert names(find_duplicates([a, b, c])) == [("cache_policy_b.md", "cache_policy_c.md")]

    def test_every_pruned_file_points_to_a_survivor(self) -> None:
        """Three mutual duplicates: both older ones go into the newest."""
        text = body(words("same", 10))
        files = [
            memory(f"cache_policy_{k}.md", body=text, description=DESCRIPTION, age=timedelta(k))
            for k in (3, 2, 1)
        ]
        assert names(find_duplicates(files)) == [
            ("cache_policy_2.md", "cache_policy_1.md"),
            ("cache_policy_3.md", "cache_policy_1.md"),
        ]


def contradicting(shared: int, own: int, *, old_says: str = "Always") -> tuple[str, str]:
    """Two bodies with the same directive reversed and ``2 + shared`` common words.

    The directives add ``use`` and ``pnpm`` to the common words and one cue
    word (``always`` / ``never``) to each side, so each body has
    ``3 + shared + own`` significant words.
    """
    other = "Never" if old_says == "Always" else "Always"
    common = words("shared", shared)
    return (
        body(f"{old_says} use pnpm.", common, words("left", own)),
        body(f"{other} use pnpm.", common, words("right", own)),
    )


class TestContradictions:
    def test_overlap_of_04_with_a_negation_is_a_contradiction(self) -> None:
        """4 of 10 words shared and a reversed directive: the older is pruned."""
        left, right = contradicting(2, 5)
        assert overlap_ratio(significant_words(left), significant_words(right)) == 0.4
        old = memory("pnpm_usage.md", body=left, age=timedelta(days=40))
        new = memory("installs_decided.md", body=right, age=timedelta(days=10))
        [pair] = find_contradictions([old, new])
        assert (pair.older, pair.newer, pair.kind) == (old, new, "contradiction")
        assert (pair.ratio, pair.signal) == (0.4, ("always ", "never "))

    def test_overlap_below_04_is_no_contradiction(self) -> None:
        """39 of 100 words shared is unrelated, whatever the directives say."""
        left, right = contradicting(37, 60)
        assert overlap_ratio(significant_words(left), significant_words(right)) == 0.39
        old = memory("pnpm_usage.md", body=left, age=timedelta(days=40))
        new = memory("installs_decided.md", body=right, age=timedelta(days=10))
        assert find_contradictions([old, new]) == []

    def test_overlap_of_06_is_no_contradiction(self) -> None:
        """6 of 10 shared is the duplicate range, and different subjects are no duplicates."""
        left, right = contradicting(4, 3)
        assert overlap_ratio(significant_words(left), significant_words(right)) == 0.6
        old = memory("pnpm_usage.md", body=left, age=timedelta(days=40))
        new = memory("installs_decided.md", body=right, age=timedelta(days=10))
        assert find_similar([old, new]).contradictions == ()
        assert find_similar([old, new]).duplicates == ()

    def test_no_negation_no_contradiction(self) -> None:
        """Related bodies without a reversed claim are both kept."""
        left, right = contradicting(2, 5)
        right = right.replace("Never use pnpm.", "Consider use pnpm.")
        assert overlap_ratio(significant_words(left), significant_words(right)) == 0.4
        old = memory("pnpm_usage.md", body=left, age=timedelta(days=40))
        new = memory("installs_decided.md", body=right, age=timedelta(days=10))
        assert find_contradictions([old, new]) == []

    def test_the_newer_decision_wins_whichever_way_it_goes(self) -> None:
        """A newer "always" supersedes an older "never" too."""
        left, right = contradicting(2, 5, old_says="Never")
        old = memory("pnpm_usage.md", body=left, age=timedelta(days=40))
        new = memory("installs_decided.md", body=right, age=timedelta(days=10))
        assert names(find_contradictions([new, old])) == [("pnpm_usage.md", "installs_decided.md")]

    def test_different_types_never_contradict(self) -> None:
        """A feedback and a project memory are never contradictions."""
        left, right = contradicting(2, 5)
        old = memory("pnpm_usage.md", type="feedback", body=left, age=timedelta(days=40))
        new = memory("installs_decided.md", type="project", body=right, age=timedelta(days=10))
        assert find_contradictions([old, new]) == []

    def test_a_pruned_duplicate_is_not_used_again(self) -> None:
        """A contradicts B, B duplicates C, C agrees with A: only B is pruned."""
        left, right = contradicting(2, 5)
        a = memory("pnpm_usage.md", body=left, age=timedelta(days=90))
        b = memory("installs_decided.md", body=right, age=timedelta(days=60))
        c_body = right.replace("Never use pnpm.", "Pnpm is fine.")
        c = memory("installs_decided_v2.md", body=c_body, age=timedelta(days=30))
        result = find_similar([a, b, c])
        assert names(result.duplicates) == [("installs_decided.md", "installs_decided_v2.md")]
        assert result.contradictions == ()

    def test_a_duplicate_of_a_contradicted_memory_goes_with_it(self) -> None:
        """A duplicates B, C contradicts B: A and B go, and both finally stand for C."""
        left, right = contradicting(2, 5)
        a = memory("pnpm_usage.md", body=left, age=timedelta(days=90))
        b = memory("pnpm_usage_v2.md", body=left, age=timedelta(days=60))
        c = memory("installs_decided.md", body=right, age=timedelta(days=30))
        result = find_similar([a, b, c])
        assert names(result.duplicates) == [("pnpm_usage.md", "pnpm_usage_v2.md")]
        assert names(result.contradictions) == [("pnpm_usage_v2.md", "installs_decided.md")]
        assert result.survivor_of("pnpm_usage.md") == "installs_decided.md"
        assert result.survivor_of("installs_decided.md") is None


class TestComparisons:
    def test_all_pairs_counts_pairs_within_known_types(self) -> None:
        """n·(n-1)/2 per type; memories without a type are not counted."""
        files = [memory(f"f{k}.md", type="feedback") for k in range(4)]
        files += [memory(f"p{k}.md", type="project") for k in range(3)]
        files += [memory(f"n{k}.md", type=None) for k in range(5)]
        assert all_pairs_count(files) == 6 + 3
        assert find_similar(files).comparisons.all_pairs == 9

    def test_unrelated_memories_are_screened_far_below_all_pairs(self) -> None:
        """300 memories on different subjects: almost no pair is even looked at."""
        files = [
            memory(
                f"topic{k}_notes.md",
                body=body(words(f"t{k}", 30), words("common", 10)),
                description=f"Notes on subject{k} and area{k}",
                age=timedelta(days=k),
            )
            for k in range(300)
        ]
        comparisons = find_similar(files).comparisons
        assert comparisons.all_pairs == 300 * 299 // 2
        assert comparisons.screened < comparisons.all_pairs / 100

    def test_threshold_must_be_positive(self) -> None:
        """A zero threshold would pair everything; it is refused."""
        with pytest.raises(ValueError, match="positive"):
            candidate_pairs([frozenset("ab")], 0.0)


# --- the indexes against brute force (Hypothesis) -----------------------------------------------

VOCAB = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
word_sets = st.lists(st.frozensets(st.sampled_from(VOCAB), max_size=6), max_size=12)


@given(word_sets, st.sampled_from([0.4, 0.6, 0.8, 0.25, 1.0]), st.integers(1, 3))
def test_candidate_pairs_hold_every_pair_at_the_threshold(
    sets: list[frozenset[str]], threshold: float, min_shared: int
) -> None:
    """Prefix filtering misses no pair that reaches the ratio and the shared-word minimum."""
    found = candidate_pairs(sets, threshold, min_shared)
    for i, j in combinations(range(len(sets)), 2):
        shared = len(sets[i] & sets[j])
        if overlap_ratio(sets[i], sets[j]) >= threshold and shared >= min_shared:
            assert (i, j) in found


@given(word_sets)
def test_nesting_pairs_are_exactly_the_nested_pairs(sets: list[frozenset[str]]) -> None:
    """The name index returns every nested pair and nothing else."""
    expected = {
        (i, j)
        for i, j in combinations(range(len(sets)), 2)
        if min(len(sets[i]), len(sets[j])) >= 2 and (sets[i] <= sets[j] or sets[j] <= sets[i])
    }
    assert nesting_pairs(sets) == expected


CUES = ["Do", "Do not", "Don't", "Use", "Avoid", "Stop using", "Prefer", "Don't prefer"]
CUES += ["Always", "Never", "Never use", "Always use"]
sentences = st.builds(
    lambda cue, obj: f"{cue} {' '.join(obj)}.",
    st.sampled_from(CUES),
    st.lists(st.sampled_from(VOCAB[:4]), min_size=1, max_size=4),
)
bodies = st.lists(sentences, max_size=4).map(" ".join)


@given(st.lists(bodies, max_size=10))
def test_signal_pairs_hold_every_signalled_pair(texts: list[str]) -> None:
    """The denial index misses no pair with a negation signal."""
    cues = [cue_objects(t) for t in texts]
    found = signal_pairs(cues)
    for i, j in combinations(range(len(texts)), 2):
        if signal_between(cues[i], cues[j]) is not None:
            assert (i, j) in found
        assert signal_between(cues[i], cues[j]) == negation_signal(texts[i], texts[j])


Spec = tuple[str, str, MemoryType | None, str, str, str, int]
TYPES: list[MemoryType | None] = ["feedback", "project", None]
name_parts = st.lists(st.sampled_from(VOCAB[:5]), min_size=1, max_size=3)
specs = st.tuples(
    name_parts.map("_".join),  # slug
    st.one_of(st.just(""), name_parts.map(" ".join)),  # front matter name
    st.sampled_from(TYPES),
    st.lists(st.sampled_from(VOCAB), min_size=1, max_size=8).map(" ".join),  # body words
    bodies,  # directives
    st.lists(st.sampled_from(VOCAB[:5]), max_size=5).map(" ".join),  # description
    st.integers(min_value=0, max_value=4),  # age in days: ties are common
)


def build(folder: list[Spec]) -> list[MemoryFile]:
    """Memories from specs. File names stay unique by appending stopwords, which leave the
    name's words unchanged, so slugs still nest."""
    return [
        memory(
            "_".join([slug, *["the"] * k]) + ".md",
            type=kind,
            body=f"{text}\n\n{directive}",
            title=title,
            description=description,
            age=timedelta(days=age),
        )
        for k, (slug, title, kind, text, directive, description, age) in enumerate(folder)
    ]


Test = Callable[[MemoryFile, MemoryFile], bool]


def _ratio(a: MemoryFile, b: MemoryFile) -> float:
    return overlap_ratio(significant_words(a.body), significant_words(b.body))


def _is_dup(a: MemoryFile, b: MemoryFile) -> bool:
    x, y = significant_words(a.body), significant_words(b.body)
    both_ways = bool(x and y) and len(x & y) >= 0.3 * max(len(x), len(y))
    return _ratio(a, b) >= 0.6 and both_ways and same_subject(a, b)


def _is_contra(a: MemoryFile, b: MemoryFile) -> bool:
    return 0.4 <= _ratio(a, b) < 0.6 and negation_signal(a.body, b.body) is not None


def _newest_first(group: list[MemoryFile], test: Test) -> list[tuple[MemoryFile, MemoryFile]]:
    kept: list[MemoryFile] = []
    pruned = []
    for f in sorted(group, key=lambda m: (age_key(m), m.name), reverse=True):
        partners = [(f, k) for k in kept if test(f, k) and newer_of(age_of(k), age_of(f)) == 1]
        if partners:
            pruned.append(max(partners, key=lambda p: (_ratio(*p), age_key(p[1]), p[1].name)))
        else:
            kept.append(f)  # no partner, or none that is surely newer: kept
    return pruned


def oracle(files: list[MemoryFile]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The seed's loop written plainly: every same-type pair, newest kept first."""
    dups: list[tuple[MemoryFile, MemoryFile]] = []
    contras: list[tuple[MemoryFile, MemoryFile]] = []
    for kind in ("feedback", "project"):
        group = [f for f in files if f.type == kind]
        gone = _newest_first(group, _is_dup)
        dups += gone
        gone_names = {old.name for old, _ in gone}
        contras += _newest_first([f for f in group if f.name not in gone_names], _is_contra)
    return (
        sorted((a.name, b.name) for a, b in dups),
        sorted((a.name, b.name) for a, b in contras),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(specs, max_size=12), st.randoms(use_true_random=False))
def test_find_similar_equals_the_all_pairs_loop(folder: list[Spec], rng: random.Random) -> None:
    """On random folders the indexed search finds exactly what the seed's loop finds."""
    files = build(folder)
    result = find_similar(files)
    assert (names(result.duplicates), names(result.contradictions)) == oracle(files)
    exhaustive = find_similar(files, exhaustive=True)
    assert (exhaustive.duplicates, exhaustive.contradictions) == (
        result.duplicates,
        result.contradictions,
    )
    shuffled = list(files)
    rng.shuffle(shuffled)
    assert find_similar(shuffled) == result
    duplicated = {p.older.name for p in result.duplicates}
    contradicted = {p.older.name for p in result.contradictions}
    assert not duplicated & contradicted
    for pair in result.duplicates:
        assert pair.newer.name not in duplicated
    for pair in result.contradictions:
        assert pair.newer.name not in duplicated | contradicted
    for pair in (*result.duplicates, *result.contradictions):
        assert age_key(pair.older) < age_key(pair.newer)
        assert result.survivor_of(pair.older.name) not in duplicated | contradicted
    assert result.comparisons.compared <= result.comparisons.screened
    assert result.comparisons.screened <= result.comparisons.all_pairs == all_pairs_count(files)


# --- real folders -------------------------------------------------------------------------------

MEMORY_FIXTURES = SHARED_FIXTURES / "memory"


def real_folders() -> list[Path]:
    if not MEMORY_FIXTURES.is_dir():
        return []
    return sorted(p for p in MEMORY_FIXTURES.iterdir() if p.is_dir())


@pytest.mark.fixtures
@pytest.mark.parametrize("source", real_folders() or [None], ids=lambda p: p.name if p else "none")
def test_real_folders_give_the_all_pairs_result(source: Path | None, tmp_path: Path) -> None:
    """Every real memory folder: the search equals the all-pairs loop, survivors are kept."""
    if source is None:
        pytest.skip(f"shared memory fixtures not found at {MEMORY_FIXTURES}")
    from dreamd.dream.folder.inventory import load_folder

    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    files = list(load_folder(folder, None).files)
    result = find_similar(files)
    exhaustive = find_similar(files, exhaustive=True)
    assert (result.duplicates, result.contradictions) == (
        exhaustive.duplicates,
        exhaustive.contradictions,
    )
    pruned = {p.older.name for p in (*result.duplicates, *result.contradictions)}
    assert all(result.survivor_of(name) not in pruned for name in pruned)
    assert result.comparisons.screened < max(1, result.comparisons.all_pairs)


@pytest.mark.fixtures
def test_real_near_duplicate_with_a_superseding_file_is_found(tmp_path: Path) -> None:
    """The cover-letter rules file that says it supersedes the older one is its duplicate."""
    source = MEMORY_FIXTURES / "4444J99__application-pipeline__claude-memory"
    if not source.is_dir():
        pytest.skip(f"shared memory fixtures not found at {source}")
    from dreamd.dream.folder.inventory import load_folder

    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    files = {f.name: f for f in load_folder(folder, None).files}
    old = files["feedback_cover_letter_quality.md"]
    new = files["feedback_resume_cover_letter_quality_2026-03-26.md"]
    assert same_subject(old, new)
    assert overlap_ratio(significant_words(old.body), significant_words(new.body)) >= 0.6
    additive = files["feedback_rules_are_additive.md"], files["feedback_additive_design.md"]
    assert not same_subject(*additive)
