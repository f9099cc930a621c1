"""The query language every store answers, and the one BM25 that orders hits."""

from __future__ import annotations

import math

import pytest

from dreamd.search import bm25
from dreamd.search.query import parse_query, positions, words


def _matches(query: str, text: str) -> bool:
    return parse_query(query).matches(positions(words(text)))


def test_words_are_runs_of_letters_and_digits_case_folded() -> None:
    """Punctuation, underscores and paths cut words; case does not matter."""
    assert words("Use op_key in stores/SQL.py, Ünïcode!") == [
        "use", "op", "key", "in", "stores", "sql", "py", "ünïcode",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("query", "text", "expected"),
    [
        ("postgres lock", "the PostgreSQL advisory lock", False),  # no stemming, no prefix
        ("advisory lock", "take the lock, advisory only", True),  # every word, any order
        ('"advisory lock"', "take the lock, advisory only", False),  # a phrase: in order
        ('"advisory lock"', "an advisory lock is taken", True),
        ("uv or poetry", "we use poetry", True),
        ("uv or poetry", "we use pip", False),
        ("linter -ruff", "run the linter (ruff) first", False),
        ("linter -ruff", "run the linter first", True),
        ("stores/sql.py", "see stores/sql.py for it", True),  # a bare term of words: a phrase
        ("stores/sql.py", "sql stores, py", False),
        ("-ruff", "anything", False),  # nothing required: nothing matches
        ("", "anything", False),
    ],
)
def test_a_query_matches_as_web_search_syntax_reads(query: str, text: str, expected: bool) -> None:
    """Words are all required, quotes make phrases, ``or`` offers alternatives, ``-`` excludes."""
    assert _matches(query, text) is expected


def test_one_query_is_rendered_for_fts5_and_for_postgresql() -> None:
    """Both renderings quote every phrase, so no word the user typed can act as an operator."""
    query = parse_query('lint or "pre commit" not -"skip ci" OR')
    assert query.fts5() == '("lint" OR "pre commit") AND ("not") NOT "skip ci"'
    assert query.websearch() == '"lint" or "pre commit" "not" -"skip ci"'
    assert query.words == ("lint", "pre", "commit", "not")
    assert query.required == ("not",)


def test_bm25_follows_the_textbook_formula() -> None:
    """A hand-computed score: two documents, one word in one of them."""
    docs = [bm25.document([], ["lock", "lock", "x"]), bm25.document([], ["y", "z", "w"])]
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    expected = idf * 2 * (bm25.K1 + 1) / (2 + bm25.K1 * (1 - bm25.B + bm25.B * 3 / 3))
    assert bm25.scores(docs, ["lock"]) == [pytest.approx(expected), 0.0]


def test_bm25_weights_are_never_negative_and_titles_count_more() -> None:
    """A word in every document still scores above zero; the same word in a title scores higher."""
    docs = [bm25.document(["deploy"], ["steps"]), bm25.document([], ["deploy", "steps"])]
    first, second = bm25.scores(docs, ["deploy"])
    assert first > second > 0
