"""Task-of-the-moment scope tests and clauses (issue 11 item 1), alone and through the heuristic.

Every message here is invented for the test: orders for now, progress
requests, step lists and run-on sentences, in English, German, Spanish,
Chinese and Japanese.
"""

from __future__ import annotations

from datetime import date

import pytest

from dreamd.collect.heuristic import HEURISTIC
from dreamd.collect.norms import IMPERATIVES
from dreamd.collect.pipeline import SessionInfo, Window
from dreamd.collect.scope import (
    is_progress_request,
    is_specification,
    is_task_list,
    points_at_moment,
)
from dreamd.collect.sentences import clauses, sentences
from dreamd.readers import Message
from dreamd.stores import MemoryItem

SESSION = SessionInfo("gemini", "mac", "sess-2", "/Users/kim/app", date(2025, 2, 2))


def topics(text: str) -> list[MemoryItem]:
    """The heuristic's topics for one user message after an assistant turn."""
    turns = (
        Message("u0", "user", "let's work on the settings page", None),
        Message("a0", "assistant", "Sure, I changed the layout.", None),
        Message("u1", "user", text, None),
    )
    return HEURISTIC.topics(Window(SESSION, turns))


class TestMoment:
    @pytest.mark.parametrize(
        "text",
        [
            "keep the old helper for now",
            "every test in this PR must pass",
            "next, rename the module",
            "then add tests",
            "make sure it builds when you're done",
            "lass das erstmal so",
            "deja esto así por ahora",
            "这次先不要改",
            "今回はこのままにしてください",
        ],
    )
    def test_pointers_at_the_moment_are_found(self, text: str) -> None:
        """Time, place and the thing at hand point at the moment, in every language."""
        assert points_at_moment(text)

    @pytest.mark.parametrize(
        "text",
        [
            "never push to main in this repo",
            "every time a test fails, show its log",
            "from now on write commit messages in English",
            "on the next release we bump the major version",
            "in diesem Repo nie direkt auf main pushen",
            "今後はコミットメッセージを英語で書いてください",
        ],
    )
    def test_durable_scopes_are_not_the_moment(self, text: str) -> None:
        """ "In this repo", "every time", "from now on" and 今後 outlast the session."""
        assert not points_at_moment(text)

    @pytest.mark.parametrize(
        "text",
        ["continue", "ok, keep going", "now add a button", "weiter", "sigue", "继续", "続けて"],
    )
    def test_progress_requests_are_found(self, text: str) -> None:
        """Requests to go on with the work are progress, not rules."""
        assert is_progress_request(text)

    def test_a_written_out_specification_is_a_task(self) -> None:
        """Four directive sentences describe the feature at hand; one norm alone does not."""
        spec = [
            "The page must show the open orders.",
            "Each row should have a delete button.",
            "Add a filter for the status.",
            "Every price must be shown in euros.",
        ]
        assert is_specification(spec, IMPERATIVES)
        assert not is_specification(spec[-1:], IMPERATIVES)
        assert topics(" ".join(spec)) == []
        assert topics(spec[-1]) != []

    def test_a_list_of_steps_is_a_task_but_a_list_of_rules_is_not(self) -> None:
        """Imperative bullets specify the task; a lead-in naming rules makes them rules."""
        steps = "for the footer:\n- add a logo\n- keep the links in one row\n- use the brand font"
        rules = "Our conventions:\n- use tabs\n- keep functions short"
        assert is_task_list(steps, IMPERATIVES)
        assert not is_task_list(rules, IMPERATIVES)


class TestThroughTheHeuristic:
    @pytest.mark.parametrize(
        "text",
        [
            "fix the failing test in the parser",
            "now add a button to the header",
            "continue",
            "first run the linter, then commit",
            "keep the header in the navbar component for now",
            "we should update every caller of the old function in this PR",
            "footer:\n- add a logo\n- keep links in our footer component\n- use the brand font",
            "Füge jetzt einen Button hinzu.",
            "Mach weiter.",
            "Ahora agrega un botón al encabezado.",
            "Sigue con el siguiente paso.",
            "现在加一个按钮。",
            "继续。",
            "今このボタンを追加してください。",
            "続けてください。",
        ],
    )
    def test_task_of_the_moment_orders_plant_nothing(self, text: str) -> None:
        """Orders for now, progress requests and step lists plant nothing in any language."""
        assert topics(text) == []

    def test_a_questioned_sentence_gives_no_clauses(self) -> None:
        """ "never push to main, right?" is a question as a whole: no clause of it is a rule."""
        (sentence,) = sentences("never push to main, right?")
        assert clauses(sentence) == []
        assert topics("never push to main, right?") == []

    def test_a_rule_inside_a_run_on_sentence_is_found_as_its_clause(self) -> None:
        """A norm chained after a request ("can you ..., security is paramount") is its clause."""
        text = "can you look at the login code again, security is paramount"
        (item,) = topics(text)
        assert item.quotes[0].text == "security is paramount"

    def test_a_hypothetical_clause_scopes_over_the_clauses_after_it(self) -> None:
        """ "if we ever need it, every handler must log" is hypothetical as a whole."""
        assert topics("if we ever need it, every handler must log its caller") == []
        assert topics("si algún día lo necesitamos, cada handler debe registrar su origen") == []
        assert topics("ok, every handler must log its caller") != []

    def test_clauses_are_verbatim_substrings(self) -> None:
        """Every clause of a sentence can be found in the sentence again."""
        (sentence,) = sentences("Abre el archivo: no uses mocks, usa la base real; gracias")
        parts = clauses(sentence)
        assert [part.text for part in parts] == [
            "Abre el archivo",
            "no uses mocks",
            "usa la base real",
            "gracias",
        ]
        assert all(part.text in sentence.text for part in parts)
