"""Fact rules of the heuristic extractor (seed 002 phase 3 topics scan; issue 11 item 1).

Durable facts a user states that the code does not say: what the project is
("we are building a mobile app for Android") and a statement the user has
checked against a source ("X fires on exit, I just checked the docs"). Each
rule is a function ``Sentence -> Hit | None`` with its patterns per language
(English, German, Spanish, Chinese, Japanese).

Invariants:

- a project fact names a product ("app", "service", "library" ...) the
  speaker's team builds; "we are building a new page" is a task;
- a checked fact is the clause beside the evidential marker; the marker
  alone ("I checked the docs") states nothing;
- pure functions of the sentence: no clock, no I/O, no randomness.
"""

# The rules match Japanese and Chinese punctuation on purpose.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import re

from dreamd.collect.lexicon import EVIDENTIALS, PRODUCT_NOUNS
from dreamd.collect.rules import DEICTIC, Hit
from dreamd.collect.scope import points_at_moment
from dreamd.collect.sentences import TRAILING_MARKS, Sentence, sized

__all__ = ["rule_project_fact", "rule_verified_fact"]

_PROJECT = (
    re.compile(
        rf"^(?:we|i)(?:'re|'m| are| am)\s+(?:building|developing|making|writing|creating)\s+"
        rf"(?:a|an)\s+(?:[\w.+#-]+\s+){{0,5}}?(?:{PRODUCT_NOUNS})\b(?:\s+(?:for|on|in|with|using"
        rf"|that)\s+.{{2,60}})?$",
        re.I,
    ),
    re.compile(
        rf"^wir\s+(?:bauen|entwickeln|schreiben|erstellen|machen)\s+(?:gerade\s+)?(?:eine?n?)\s+"
        rf"(?:[\w.+#-]+\s+){{0,5}}?[\w-]*(?:{PRODUCT_NOUNS})\b.{{0,60}}$",
        re.I,
    ),
    re.compile(
        rf"^(?:estamos|estoy)\s+(?:construyendo|desarrollando|haciendo|creando|programando)\s+"
        rf"(?:un|una)\s+(?:{PRODUCT_NOUNS})\b.{{0,60}}$",
        re.I,
    ),
    re.compile(
        r"^我们(?:在|正在)(?:做|开发|构建|写)(?:一个|一款)?.{1,20}?(?:应用|App|app|APP|工具|服务|库|网站"
        r"|平台|插件|机器人|游戏)"
    ),
    re.compile(
        r".{1,20}?(?:アプリ|ツール|サービス|ライブラリ|サイト|プラットフォーム|ゲーム)を(?:作って|開発して|構築して)います"
    ),
)


def rule_project_fact(s: Sentence) -> Hit | None:
    """What the project is: "we are building a <product> for <target>" (seed 002 facts; issue 11).

    "We're building a CLI tool for data engineers", "Wir entwickeln eine
    Web-App für Ärzte", "estamos desarrollando una aplicación para Android",
    我们在做一个面向学生的App, 学生向けのアプリを開発しています. The product
    noun is required; a clause that points at the moment is not a fact.
    """
    clause = s.core.rstrip(TRAILING_MARKS)
    found = next((found for p in _PROJECT if (found := p.search(clause))), None)
    if found is None or DEICTIC.search(clause) or points_at_moment(clause):
        return None
    return Hit("project_fact", "Fact", "project")


_EVIDENTIAL = re.compile(rf"(?:{EVIDENTIALS})", re.I)
_SEPARATORS = " ,;:.—–-，、。"


def rule_verified_fact(s: Sentence) -> Hit | None:
    """A fact the user checked against a source: "..., I just checked the docs" (issue 11).

    "The hook fires on exit as well, I just checked the docs", "laut Doku
    läuft der Job stündlich", "según la documentación el límite es 100",
    我查了文档，这个接口有速率限制, ドキュメントによると上限は100件です. The
    fact is the clause before the marker (or after it, when the marker opens
    the sentence); it must be a statement of its own, not a question.
    """
    found = _EVIDENTIAL.search(s.core)
    if found is None:
        return None
    before = s.core[: found.start()].strip(_SEPARATORS)
    after = re.sub(r"^(?:and|but|und|aber|y|pero)\s+", "", s.core[found.end() :].strip(_SEPARATORS))
    fact = before if sized(before) else after
    if not sized(fact) or points_at_moment(fact):
        return None
    start = s.core_at + s.core.index(fact)
    return Hit("verified_fact", "Fact", "project", clause=s.text[start : start + len(fact)])
