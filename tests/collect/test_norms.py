"""Normative statements, bans and roles (issue 11 item 1): each rule fires and holds back.

Every sentence here is invented for the test. Each rule is tried on the
shapes it recognises in English and at least two of German, Spanish,
Chinese and Japanese, and on near misses that are the task of the moment,
reports, replies or pointers at what is on screen.
"""

# Japanese and Chinese test sentences use their own punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

from collections.abc import Callable

import pytest

from dreamd.collect.bans import (
    rule_forbidden,
    rule_language,
    rule_lets_not,
    rule_manner,
    rule_no_exclaim,
    rule_stop,
)
from dreamd.collect.norms import (
    generic,
    rule_conditional,
    rule_emphatic,
    rule_keep,
    rule_only,
    rule_universal,
    rule_use_not,
)
from dreamd.collect.rules import Hit
from dreamd.collect.sentences import Sentence, sentences

Rule = Callable[[Sentence], Hit | None]


def first(text: str) -> Sentence:
    """The first sentence of ``text``, as the heuristic reads it."""
    return sentences(text)[0]


FIRES: list[tuple[Rule, str]] = [
    # a norm over every case
    (rule_universal, "Every public function must have a docstring."),
    (rule_universal, "All migrations should be reversible."),
    (rule_universal, "We should check permissions in any public endpoint."),
    (rule_universal, "Jede öffentliche Funktion muss einen Docstring haben."),
    (rule_universal, "Cada endpoint debe validar su entrada."),
    (rule_universal, "所有函数都必须有类型注解。"),
    (rule_universal, "すべての関数に型ヒントを付けてください。"),
    (rule_universal, "ok, the table breaks the rule that every row must have an owner."),
    # an exclusive choice
    (rule_only, "There should be only one place that reads the config."),
    (rule_only, "We only accept signed commits."),
    (rule_only, "use only pnpm"),
    (rule_only, "Es darf nur einen Einstiegspunkt geben."),
    (rule_only, "Solo quiero consultas SQL simples."),
    (rule_only, "我只要端到端测试。"),
    (rule_only, "型ヒントだけを使ってください。"),
    # a contrast
    (rule_use_not, "Use UTC timestamps, not local time."),
    (rule_use_not, "no tabs, use spaces"),
    (rule_use_not, "Verwende UTC, nicht Ortszeit."),
    (rule_use_not, "Usa comillas dobles, no simples."),
    (rule_use_not, "用UTC时间，不要用本地时间。"),
    (rule_use_not, "ローカル時間は使わずにUTCを使ってください。"),
    # a priority or a standard
    (rule_emphatic, "Security is paramount."),
    (rule_emphatic, "Backwards compatibility is non-negotiable."),
    (rule_emphatic, "the migration must be fully reversible"),
    (rule_emphatic, "Sicherheit ist oberste Priorität."),
    (rule_emphatic, "La legibilidad es fundamental."),
    (rule_emphatic, "性能至关重要。"),
    (rule_emphatic, "後方互換性は必須です。"),
    # a placement or a standing shape
    (rule_keep, "Keep all secrets in the vault."),
    (rule_keep, "keep functions short"),
    (rule_keep, "Halte Commits klein."),
    (rule_keep, "Mantén los commits pequeños."),
    (rule_keep, "把设计文档都放在wiki里。"),
    (rule_keep, "設計メモは常にwikiにまとめてください。"),
    # a duty tied to a recurring condition
    (rule_conditional, "Make sure you update the changelog when you add a command."),
    (rule_conditional, "In the README, make sure to mention it whenever a flag changes."),
    (rule_conditional, "Whenever a test fails, show me its log."),
    (
        rule_conditional,
        "Stell sicher, dass du die Doku aktualisierst, wenn du einen Befehl hinzufügst.",
    ),
    (
        rule_conditional,
        "Asegúrate de actualizar el changelog cada vez que agregues un comando.",
    ),
    (rule_conditional, "确保每次发布之前都跑一遍测试。"),
    (rule_conditional, "コミットする前に必ずテストを実行してください。"),
    # an emphatic ban
    (rule_no_exclaim, "No emojis!"),
    (rule_no_exclaim, "No more popups!"),
    (rule_no_exclaim, "Keine Emojis!"),
    (rule_no_exclaim, "¡Nada de mocks!"),
    (rule_no_exclaim, "禁止硬编码！"),
    (rule_no_exclaim, "絵文字は禁止！"),
    # a joint refusal
    (rule_lets_not, "Let's not skip code review for small changes."),
    (rule_lets_not, "Lass uns die Tests nicht überspringen."),
    (rule_lets_not, "No mezclemos refactors con cambios de funcionalidad."),
    (rule_lets_not, "我们不要跳过代码审查。"),
    (rule_lets_not, "大きな変更を一つのコミットにまとめるのはやめましょう。"),
    # a ban on a way of working, or a role
    (rule_manner, "Don't guess."),
    (rule_manner, "don't overengineer things"),
    (rule_manner, "don't explain, just write the code"),
    (rule_manner, "Bitte nicht raten."),
    (rule_manner, "No adivines."),
    (rule_manner, "no adivines, pregunta"),
    (rule_manner, "不要瞎猜。"),
    (rule_manner, "推測しないでください。"),
    (rule_manner, "act as a senior developer"),
    (rule_manner, "actúa como revisor de código"),
    # a ban stated as a fact
    (rule_forbidden, "Direct commits to main are forbidden."),
    (rule_forbidden, "Force-Pushes sind verboten."),
    (rule_forbidden, "Los force push están prohibidos."),
    (rule_forbidden, "严禁硬编码密钥。"),
    (rule_forbidden, "本番DBへの直接接続は禁止されています。"),
    # the language to answer in
    (rule_language, "Please reply in English."),
    (rule_language, "Antworte bitte auf Deutsch."),
    (rule_language, "Responde siempre en español."),
    (rule_language, "请用中文回答。"),
    (rule_language, "日本語で答えてください。"),
    # a habit to end
    (rule_stop, "Stop adding comments to every line."),
    (rule_stop, "Hör auf, überall Kommentare einzufügen."),
    (rule_stop, "Deja de añadir comentarios obvios."),
    (rule_stop, "别再加表情了。"),
    (rule_stop, "絵文字を付けるのはやめてください。"),
]

HOLDS_BACK: list[tuple[Rule, str]] = [
    # the task of the moment, a definite set, a pointer at the moment
    (rule_universal, "we should update all callers of the parser"),
    (rule_universal, "all the failing tests must pass"),
    (rule_universal, "every test in this file must pass"),
    (rule_universal, "wir sollten alle Aufrufer anpassen"),
    (rule_universal, "每个测试现在都必须通过"),
    (rule_only, "I only want the summary"),
    (rule_only, "I only want you to change the logo"),
    (rule_only, "I only want to see the diff"),
    (rule_only, "ich will nur die Zusammenfassung"),
    (rule_only, "quiero solo el resumen"),
    (rule_use_not, "use this, not that"),
    (rule_use_not, "use the second file, not the first one here"),
    (rule_use_not, "用这个，不要用那个"),
    (rule_emphatic, "This step is crucial."),
    (rule_emphatic, "the fix is critical"),
    (rule_emphatic, "Performance is key here"),
    (rule_emphatic, "this needs to be fully tested before the release"),
    (rule_emphatic, "die Deadline ist entscheidend"),
    (rule_emphatic, "这个很重要"),
    (rule_emphatic, "それは重要です"),
    (rule_keep, "keep the button on the left"),
    (rule_keep, "keep the old function in utils.py for now"),
    (rule_keep, "keep going, you're doing great"),
    (rule_keep, "halte die Funktion kurz"),
    (rule_keep, "mantén el botón a la izquierda"),
    (rule_keep, "このファイルはsrcに置いてください"),
    (rule_conditional, "make sure it builds when you're done"),
    (rule_conditional, "when you're done, commit and push"),
    (rule_conditional, "if the build fails, tell me"),
    (rule_conditional, "asegúrate de que funcione ahora"),
    (rule_no_exclaim, "No errors!"),
    (rule_no_exclaim, "No problem!"),
    (rule_no_exclaim, "no worries!"),
    (rule_no_exclaim, "no emojis"),
    (rule_no_exclaim, "Kein Problem!"),
    (rule_no_exclaim, "¡Sin problema!"),
    (rule_no_exclaim, "不要这个！"),
    (rule_lets_not, "let's not worry about that"),
    (rule_lets_not, "let's not merge yet"),
    (rule_lets_not, "lass uns das jetzt nicht machen"),
    (rule_lets_not, "no hagamos eso ahora"),
    (rule_manner, "don't explain this function"),
    (rule_manner, "don't assume the file exists"),
    (rule_manner, "act as a code reviewer and check my PR and then tell me what to fix"),
    (rule_manner, "no me expliques esto ahora"),
    (rule_manner, "这次不要解释"),
    (rule_forbidden, "this is not allowed"),
    (rule_forbidden, "the second button is not allowed"),
    (rule_forbidden, "das ist verboten"),
    (rule_forbidden, "esto está prohibido"),
    (rule_language, "write this comment in English"),
    (rule_language, "answer in English this time"),
    (rule_language, "antworte jetzt auf Deutsch"),
    (rule_stop, "stop doing that"),
    (rule_stop, "stop the server"),
    (rule_stop, "deja de hacer eso ahora"),
    (rule_stop, "别再这样了"),
]


class TestNorms:
    @pytest.mark.parametrize(("rule", "text"), FIRES)
    def test_a_durable_statement_is_recognised(self, rule: Rule, text: str) -> None:
        """Each rule recognises its shape in every language it covers."""
        hit = rule(first(text))
        assert hit is not None and hit.category == "Rule"

    @pytest.mark.parametrize(("rule", "text"), HOLDS_BACK)
    def test_a_near_miss_is_not(self, rule: Rule, text: str) -> None:
        """The same shapes about the task of the moment, a report or a pointer plant nothing."""
        assert rule(first(text)) is None

    def test_a_norm_named_by_a_nominal_states_the_clause_after_it(self) -> None:
        """ "... breaks the rule that every X must Y" states "every X must Y", not the complaint."""
        hit = rule_universal(
            first("hmm, i think this breaks the rule that every row must have an id.")
        )
        assert hit is not None
        assert hit.clause == "every row must have an id"

    def test_priorities_name_qualities_and_bans_name_things(self) -> None:
        """A priority is a quality ("-ity", "-ness", 性), a standing shape needs a kind of thing."""
        assert rule_emphatic(first("Maintainability is essential.")) is not None
        assert rule_emphatic(first("The release is essential.")) is None
        assert generic("integration tests") and generic("unsere Notizen")
        assert not generic("the summary") and not generic("die Zusammenfassung")
