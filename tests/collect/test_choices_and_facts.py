"""Designs, facts, references and the Spanish standing rules (issue 11 item 1).

Every sentence here is invented for the test: a design the user drops for
another or insists on, what the project is, a fact the user checked, a path
outside the repository, and the standing-instruction rules in Spanish.
"""

# Japanese and Chinese test sentences use their own punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

from collections.abc import Callable

import pytest

from dreamd.collect.choices import (
    rule_decision_because,
    rule_instead_of,
    rule_like,
    rule_need_instead,
    rule_preference,
    rule_want,
)
from dreamd.collect.facts import rule_project_fact, rule_verified_fact
from dreamd.collect.references import rule_command, rule_outside_path, rule_reference
from dreamd.collect.rules import Hit, rule_always_never, rule_dont
from dreamd.collect.sentences import Sentence, sentences
from dreamd.collect.standing import rule_from_now_on, rule_must, rule_remember

Rule = Callable[[Sentence], Hit | None]
PROJECT = "/home/ana/src/shop"


def first(text: str) -> Sentence:
    """The first sentence of ``text``, as the heuristic reads it."""
    return sentences(text)[0]


def outside(s: Sentence) -> Hit | None:
    """The outside-path rule in a session whose project is ``PROJECT``."""
    return rule_outside_path(s, PROJECT)


FIRES: list[tuple[Rule, str, str]] = [
    (rule_need_instead, "We don't need a queue, we just use a table.", "Decision"),
    (rule_need_instead, "Wir brauchen keinen Cache, sondern nehmen die Datenbank.", "Decision"),
    (rule_need_instead, "No necesitamos Redis, usamos la base de datos.", "Decision"),
    (rule_need_instead, "我们不需要缓存，直接用数据库。", "Decision"),
    (rule_want, "no, we want the retries in the worker, not in the client", "Decision"),
    (rule_want, "put the retry logic in the client, that's what I want", "Decision"),
    (rule_want, "nein, wir wollen die Prüfung im Server", "Decision"),
    (rule_want, "no, queremos la validación en el servidor", "Decision"),
    (rule_project_fact, "We are building a CLI tool for data engineers.", "Fact"),
    (rule_project_fact, "Wir entwickeln eine Web-App für Arztpraxen.", "Fact"),
    (rule_project_fact, "Estamos desarrollando una aplicación para Android.", "Fact"),
    (rule_project_fact, "我们在做一个面向学生的App。", "Fact"),
    (rule_project_fact, "学生向けのアプリを開発しています。", "Fact"),
    (rule_verified_fact, "The limit is 500 requests per hour, I just checked the docs.", "Fact"),
    (rule_verified_fact, "laut Doku läuft der Job jede Stunde", "Fact"),
    (rule_verified_fact, "según la documentación el límite es de 100 peticiones", "Fact"),
    (rule_verified_fact, "我查了文档，该接口有速率限制。", "Fact"),
    (rule_verified_fact, "ドキュメントによると上限は100件です。", "Fact"),
    (outside, "the logs are in ~/.myapp/logs", "Reference"),
    (outside, "the staging config lives in /etc/myapp/staging.toml", "Reference"),
    (outside, "die Vorlagen liegen unter /home/ana/vorlagen/mail", "Reference"),
    (outside, "las plantillas están en ~/plantillas/correo", "Reference"),
    (rule_always_never, "Usa siempre pnpm para instalar.", "Rule"),
    (rule_always_never, "Nunca hagas push directamente a main.", "Rule"),
    (rule_dont, "No uses mocks en los tests de integración.", "Rule"),
    (rule_from_now_on, "A partir de ahora, escribe los mensajes de commit en inglés.", "Rule"),
    (rule_remember, "Recuerda que la base de datos de staging es de solo lectura.", "Rule"),
    (rule_must, "La rama principal debe siempre compilar sin avisos.", "Rule"),
    (rule_preference, "Prefiero tabuladores en lugar de espacios.", "Preference"),
    (
        rule_decision_because,
        "Decidimos usar PostgreSQL porque varias máquinas escriben.",
        "Decision",
    ),
    (
        rule_decision_because,
        "let's try the streaming parser instead - we need low memory",
        "Decision",
    ),
    (rule_instead_of, "Usa pnpm en lugar de npm.", "Decision"),
    (rule_reference, "La documentación está en https://docs.example.com/api", "Reference"),
    (rule_like, "I like small commits.", "Preference"),
    (rule_like, "I don't like magic numbers.", "Preference"),
    (rule_like, "Ich mag keine Abkürzungen.", "Preference"),
    (rule_like, "No me gustan los comentarios obvios.", "Preference"),
    (rule_like, "我不喜欢魔法数字。", "Preference"),
    (rule_like, "マジックナンバーは嫌いです。", "Preference"),
    (rule_command, "To reset the local database, run `make db-reset`.", "Reference"),
    (rule_command, "the command for releases is `npm run ship`", "Reference"),
    (rule_command, "Um die Doku zu bauen, führe `make docs` aus.", "Reference"),
    (rule_command, "Para regenerar los tipos, ejecuta `npm run gen`.", "Reference"),
    (rule_command, "要重建索引，运行`make index`。", "Reference"),
    (rule_command, "ドキュメントを生成するには`make docs`を実行してください。", "Reference"),
]

HOLDS_BACK: list[tuple[Rule, str]] = [
    (rule_need_instead, "we don't need this, just use that"),
    (rule_need_instead, "we need a queue and a table"),
    (rule_want, "no, we want you to fix the parser first"),
    (rule_want, "we want to add a button"),
    (rule_want, "that looks great, that's what I wanted"),
    (rule_want, "yes this is fine, that's exactly what I wanted"),
    (rule_want, "no, queremos esto ahora"),
    (rule_project_fact, "we're building a new page for the settings"),
    (rule_project_fact, "I'm working on the login screen"),
    (rule_project_fact, "estamos haciendo una página nueva"),
    (rule_verified_fact, "I checked the docs"),
    (rule_verified_fact, "according to the docs, this works now"),
    (rule_verified_fact, "我查了文档"),
    (outside, "I saved the file in ~/Downloads/report.pdf"),
    (outside, "copy the build to ~/backup/app"),
    (outside, "look at the log in ~/.npm/_logs/debug.log"),
    (outside, "the screenshot is in /var/folders/xy/T/Screenshot.png"),
    (outside, "the entry point is in /home/ana/src/shop/main.py"),
    (outside, "mira el log en ~/logs/error.log"),
    (rule_always_never, "siempre falla en CI"),
    (rule_always_never, "nunca he visto esto"),
    (rule_dont, "no borres esto"),
    (rule_from_now_on, "a partir de ahora todo bien"),
    (rule_remember, "recuerda esto"),
    (rule_must, "eso nunca debe pasar"),
    (rule_preference, "prefiero la segunda opción"),
    (rule_like, "I like the new logo"),
    (rule_like, "I love it"),
    (rule_like, "I like your approach"),
    (rule_like, "I hate when it does that"),
    (rule_like, "ich mag die Farbe"),
    (rule_like, "me gusta el nuevo diseño"),
    (rule_like, "我喜欢这个"),
    (rule_command, "run `npm test`"),
    (rule_command, "to fix this test, run `pytest -x`"),
    (rule_command, "para arreglar esto ahora, ejecuta `make`"),
]


class TestChoicesAndFacts:
    @pytest.mark.parametrize(("rule", "text", "category"), FIRES)
    def test_a_durable_statement_is_recognised(self, rule: Rule, text: str, category: str) -> None:
        """Each rule recognises its shape in every language it covers, with its category."""
        hit = rule(first(text))
        assert hit is not None and hit.category == category

    @pytest.mark.parametrize(("rule", "text"), HOLDS_BACK)
    def test_a_near_miss_is_not(self, rule: Rule, text: str) -> None:
        """Orders, praise, pointers, temporary places and the project's own files plant nothing."""
        assert rule(first(text)) is None

    def test_a_reference_is_keyed_by_its_path(self) -> None:
        """The same place named in two sentences is one reference (its key is the path)."""
        one = outside(first("the logs are in ~/.myapp/logs."))
        two = outside(first("you find every run in ~/.myapp/logs"))
        assert one is not None and two is not None and one.key == two.key == "~/.myapp/logs"

    def test_a_command_is_keyed_by_its_text(self) -> None:
        """The command, without its backticks, is the reference's identity."""
        hit = rule_command(first("To reset the local database, run `make db-reset`."))
        assert hit is not None and hit.key == "make db-reset"

    def test_a_checked_fact_states_the_clause_beside_the_marker(self) -> None:
        """ "X, I just checked the docs" states X, not the marker."""
        hit = rule_verified_fact(
            first("The limit is 500 requests per hour, I just checked the docs.")
        )
        assert hit is not None and hit.clause == "The limit is 500 requests per hour"
