"""Item quality (issue 11 item 3): human titles, one-line descriptions, Why lines, merging.

Every statement here is invented for the test.
"""

# Japanese and Chinese test sentences use their own punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

from datetime import date

from dreamd.collect.heuristic import HEURISTIC
from dreamd.collect.items import MAX_TITLE_WORDS, reason_split, title
from dreamd.collect.pipeline import SessionInfo, Window, run_pipeline
from dreamd.readers import Message
from dreamd.stores import MemoryItem

SESSION = SessionInfo("pi", "box", "sess-4", "/home/lea/tool", date(2025, 9, 9))


def topics(*texts: str) -> list[MemoryItem]:
    """The heuristic's topics over user messages only."""
    messages = tuple(Message(f"u{i}", "user", text, None) for i, text in enumerate(texts))
    return HEURISTIC.topics(Window(SESSION, messages))


class TestTitles:
    def test_a_title_is_a_few_words_of_the_statement_without_a_hash(self) -> None:
        """The name reads as a title: the statement's first words, no slug, no digest."""
        (item,) = topics("Always run the formatter before committing.")
        assert item.name == "Always run the formatter before committing"
        assert len(item.name.split()) <= MAX_TITLE_WORDS and "-" not in item.name

    def test_a_long_statement_is_cut_on_a_content_word(self) -> None:
        """A title never ends on "the", "in", "any" or another function word."""
        name = title("We should log the request id and the user id in any handler we write.")
        assert len(name.split()) <= MAX_TITLE_WORDS
        assert name.split()[-1].lower() not in {"the", "in", "any", "and"}

    def test_emphasis_and_swearing_do_not_change_the_title(self) -> None:
        """ "NEVER", a leading capital and swear words fold away; names keep their case."""
        assert title("please NEVER push to main!") == title("Never push to main.")
        assert title("use damn UTC timestamps, not local time") == title(
            "Use UTC timestamps, not local time"
        )
        assert "UTC" in title("Use UTC timestamps, not local time")

    def test_titles_in_japanese_and_chinese_are_short_prefixes(self) -> None:
        """CJK titles are the statement's first characters, without the final stop."""
        assert title("性能至关重要。") == "性能至关重要"
        assert len(title("すべての関数に型ヒントを付けてください。長い説明がここに続きます")) <= 30


class TestBody:
    def test_a_reason_in_the_statement_becomes_a_why_line(self) -> None:
        """ "X because Y" is stated as X, with "**Why:** because Y"."""
        (item,) = topics("We decided to use SQLite because it needs no server.")
        assert item.body == "We decided to use SQLite\n**Why:** because it needs no server."
        assert item.description == "Decision: We decided to use SQLite"

    def test_a_german_spanish_and_chinese_reason_is_split_as_well(self) -> None:
        """ "weil", "porque" and 因为 open the reason in their languages."""
        assert reason_split("Wir nehmen SQLite, weil es keinen Server braucht")[1].startswith(
            "weil"
        )
        assert reason_split("Usamos SQLite porque no necesita servidor")[1].startswith("porque")
        assert reason_split("我们决定用SQLite，因为它不需要服务器")[1].startswith("因为")

    def test_a_statement_without_a_reason_has_no_why_line(self) -> None:
        """No reason in the conversation, no Why line."""
        (item,) = topics("Security is paramount.")
        assert item.body == "Security is paramount." and "**Why:**" not in item.body

    def test_a_confirmed_gotcha_says_how_to_apply_its_fix(self) -> None:
        """A gotcha's body has the failure and a How-to-apply line with the confirmed fix."""
        turns = (
            Message("a", "user", "npm run build crashes with ENOENT", None),
            Message("b", "assistant", "I added the missing dist folder.", None),
            Message("c", "user", "works now", None),
        )
        (item,) = HEURISTIC.topics(Window(SESSION, turns))
        assert item.body.startswith("npm run build crashes with ENOENT\n**How to apply:** ")
        assert "missing dist folder" in item.body

    def test_emphasis_marks_stay_in_the_quote_but_not_in_the_body(self) -> None:
        """ "only _one_ place" is said as "only one place"; the quote stays verbatim."""
        (item,) = topics("There should be only _one_ place that reads the config.")
        assert item.body == "There should be only one place that reads the config."
        assert "_one_" in item.quotes[0].text

    def test_swear_words_stay_in_the_quote_but_not_in_the_body(self) -> None:
        """The quote is verbatim; the body says the rule without the swearing."""
        (item,) = topics("use fucking UTC timestamps, not local time")
        assert item.body == "use UTC timestamps, not local time"
        assert item.quotes[0].text == "use fucking UTC timestamps, not local time"


class TestMerging:
    def test_a_restatement_in_a_later_window_merges_into_one_item(self) -> None:
        """The same rule in two windows of a session is one item with both quotes."""
        first = Window(
            SESSION, (Message("a", "user", "Every endpoint must log its caller.", None),)
        )
        second = Window(
            SESSION, (Message("b", "user", "every endpoint MUST log its caller!", None),)
        )
        (item,) = run_pipeline(HEURISTIC, [first, second]).items
        assert [q.message_id.rsplit(":", 1)[1] for q in item.quotes] == ["a", "b"]

    def test_different_statements_keep_different_names(self) -> None:
        """Two rules of one session are two items with two names."""
        items = topics("Every endpoint must log its caller.", "Every job must log its duration.")
        assert len({item.name for item in items}) == 2
