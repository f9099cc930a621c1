"""Replies to the assistant (issue 11 item 1): accepted and refused proposals, corrections.

Every turn here is invented for the test. An acceptance plants a decision
only after an assistant sentence that recommends one choice; a refusal needs
its reason; a correction needs the assistant's change before it.
"""

# Japanese and Chinese test sentences use their own punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

from datetime import date

import pytest

from dreamd.collect.heuristic import HEURISTIC
from dreamd.collect.pipeline import SessionInfo, Window
from dreamd.readers import Message
from dreamd.stores import MemoryItem

SESSION = SessionInfo("codex", "desk", "sess-9", "/srv/shop", date(2025, 6, 1))

RECOMMENDS = {
    "en": "There are two ways to cache this.\n\nI'd recommend SQLite, since it needs no server.",
    "de": "Es gibt zwei Wege. Ich empfehle SQLite, weil es keinen Server braucht.",
    "es": "Hay dos opciones. Te recomiendo SQLite, porque no necesita servidor.",
    "zh": "有两种做法。我建议用SQLite，因为它不需要服务器。",
    "ja": "方法は二つあります。SQLiteをお勧めします。",
}
OFFERS = "I updated the parser. Should I run the full test suite now?"


def topics(*turns: tuple[str, str]) -> list[MemoryItem]:
    """The heuristic's topics over a window of (role, text) turns."""
    messages = tuple(Message(f"m{i}", role, text, None) for i, (role, text) in enumerate(turns))  # type: ignore[arg-type]
    return HEURISTIC.topics(Window(SESSION, messages))


def user(text: str) -> tuple[str, str]:
    return ("user", text)


def assistant(text: str) -> tuple[str, str]:
    return ("assistant", text)


class TestAcceptance:
    @pytest.mark.parametrize(
        ("language", "reply"),
        [
            ("en", "yes, let's do that"),
            ("en", "sounds good"),
            ("en", "ok do it"),
            ("de", "ja, machen wir so"),
            ("es", "sí, de acuerdo"),
            ("zh", "好的"),
            ("ja", "はい"),
        ],
    )
    def test_agreeing_to_a_recommendation_plants_the_decision(
        self, language: str, reply: str
    ) -> None:
        """A short agreement after a recommendation is a decision quoting both sides."""
        (item,) = topics(user("how should we cache?"), assistant(RECOMMENDS[language]), user(reply))
        assert (item.type, item.category) == ("project", "Decision")
        assert "SQLite" in item.body and item.body.startswith("Accepted:")
        assert [q.message_id.rsplit(":", 1)[1] for q in item.quotes] == ["m1", "m2"]
        assert "SQLite" in item.quotes[0].text and item.quotes[0].text in RECOMMENDS[language]

    def test_going_with_an_option_number_takes_that_option(self) -> None:
        """ "go with 2" after a numbered list and a recommendation decides option 2."""
        text = "Options:\n1. Redis for everything\n2. SQLite on disk\n\nI'd recommend option 2."
        (item,) = topics(user("cache?"), assistant(text), user("go with 2"))
        assert item.quotes[0].text == "2. SQLite on disk"

    def test_naming_another_choice_is_not_accepting_the_recommendation(self) -> None:
        """ "go with Redis" after a recommendation of SQLite does not accept SQLite."""
        turns = (user("cache?"), assistant(RECOMMENDS["en"]), user("go with Redis"))
        assert all("SQLite" not in item.body for item in topics(*turns))

    @pytest.mark.parametrize("reply", ["yes", "ok do it", "sí", "はい", "好的"])
    def test_agreeing_to_an_offer_to_act_plants_nothing(self, reply: str) -> None:
        """ "Should I run the tests?" is no proposal: a "yes" to it decides nothing durable."""
        assert topics(user("fix the parser"), assistant(OFFERS), user(reply)) == []

    def test_agreement_without_an_assistant_before_it_plants_nothing(self) -> None:
        """The acceptance rule needs an assistant proposal right before the reply."""
        assert topics(user(RECOMMENDS["en"]), user("yes, let's do that")) == []
        assert topics(assistant(RECOMMENDS["en"]), user("let's see"), user("sounds good")) == []

    def test_agreement_with_an_order_is_not_an_acceptance(self) -> None:
        """ "yes, and also rename the module" is an order of its own, not agreement alone."""
        turns = (
            user("cache?"),
            assistant(RECOMMENDS["en"]),
            user("yes, and also rename the module"),
        )
        assert topics(*turns) == []

    def test_a_recommendation_for_the_moment_is_not_decided(self) -> None:
        """ "I'd recommend running the tests now" is a step of the task, not a choice."""
        turns = (user("done?"), assistant("I'd recommend running the tests now."), user("ok"))
        assert topics(*turns) == []


class TestRefusal:
    @pytest.mark.parametrize(
        "reply",
        [
            "that's a bad idea, because one lock would block every reader",
            "schlechte Idee, weil ein globales Lock jeden Leser blockiert",
            "mala idea, porque un solo bloqueo frenaría a todos los lectores",
            "不行，因为一个全局锁会阻塞所有读者",
        ],
    )
    def test_refusing_a_recommendation_with_a_reason_plants_the_decision(self, reply: str) -> None:
        """A refusal with its reason is a decision against the proposal, the reason as Why."""
        proposal = "Option A: one global lock for the cache (recommended)"
        (item,) = topics(user("sync design?"), assistant(proposal), user(reply))
        assert item.category == "Decision" and item.body.startswith("Rejected:")
        assert "**Why:**" in item.body

    def test_a_refusal_without_a_reason_plants_nothing(self) -> None:
        """ "bad idea" alone says what not to do but not why: nothing is planted."""
        proposal = "I'd recommend one global lock for the cache."
        assert topics(user("locking?"), assistant(proposal), user("bad idea")) == []

    def test_per_option_refusals_with_reasons_are_decisions(self) -> None:
        """ "2. <reason>, let's drop it" refuses option 2 of the assistant's list, with a reason."""
        options = "Which ones?\n1. A linter rule\n2. A nightly fuzzing job\n3. A pre-commit hook"
        reply = "1. yes\n2. too slow on our small runners, let's drop it\n3. no"
        (item,) = topics(user("ideas?"), assistant(options), user(reply))
        assert item.quotes[0].text == "2. A nightly fuzzing job"
        assert "too slow on our small runners" in item.body

    @pytest.mark.parametrize(
        "reply", ["no, that's fine", "nein, das passt so", "no, está bien así"]
    )
    def test_declining_a_proposed_change_keeps_the_current_design(self, reply: str) -> None:
        """ "Should we add X?" answered "no, that's fine" decides to keep things as they are."""
        question = "The caches disagree for a second at most. Should we add a lock around both?"
        (item,) = topics(user("why do they differ?"), assistant(question), user(reply))
        assert item.category == "Decision" and item.body.startswith("Declined:")

    def test_declining_an_offer_to_act_plants_nothing(self) -> None:
        """ "Should I commit?" — "no, it's fine" is no design decision."""
        turns = (user("done"), assistant("All green. Should I commit?"), user("no, it's fine"))
        assert topics(*turns) == []


class TestCorrection:
    @pytest.mark.parametrize(
        "reply",
        [
            "why did you rename the config keys? keep the names I chose",
            "warum hast du die Farbe geändert? behalte die alte Farbe",
            "¿por qué cambiaste el color? deja el color que elegí",
            "你为什么改了颜色？保留我选的颜色",
        ],
    )
    def test_a_complaint_about_a_change_and_an_order_to_keep_is_a_rule(self, reply: str) -> None:
        """The order after "why did you change X?" is a rule, the complaint its reason."""
        (item,) = topics(user("restyle the footer"), assistant("Done, I restyled it."), user(reply))
        assert (item.type, item.category) == ("feedback", "Rule")
        assert "**Why:** The user objected:" in item.body
        assert all(q.message_id.endswith(":m2") for q in item.quotes)

    def test_a_complaint_without_an_assistant_turn_plants_nothing(self) -> None:
        """Without an assistant change before it, the complaint corrects nothing."""
        assert topics(user("why did you rename the config keys? keep the names I chose")) == []

    def test_a_complaint_alone_plants_nothing(self) -> None:
        """ "why did you change X?" with no instruction after it is only a question."""
        turns = (user("tidy it"), assistant("Done."), user("why did you rename the config keys?"))
        assert topics(*turns) == []
