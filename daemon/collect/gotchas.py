"""The gotcha rule of the heuristic extractor (seed 002 phase 3 topics scan; issue 11 item 1).

A gotcha is a failure, its cause or fix, and the user's word that the fix
worked, all in one window: the user reports the failure, the assistant's
reply names a cause or a fix, and the user's next message confirms it ("that
fixed it", "works now", "jetzt geht's", "ya funciona", 直りました, 修好了) with
no "still" or "but". English, German, Spanish, Chinese and Japanese.

Invariants:

- the failure and the confirmation are the user's words; only the fix
  sentence is quoted from the assistant, and only after both;
- only in technical context (a gotcha is a coding lesson);
- pure functions of the window: no clock, no I/O, no randomness.
"""

# The patterns match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import takewhile

from dreamd.collect.pipeline import Window
from dreamd.collect.sentences import CJK, sentences
from dreamd.readers import Message

__all__ = ["MAX_CONFIRM_WORDS", "rule_gotcha"]

MAX_CONFIRM_WORDS = 15  # a fix confirmation is short

_FAILURE = re.compile(
    r"\b(?:error|errors|exception|traceback|crash(?:es|ed|ing)?|fail(?:s|ed|ing|ure)?|broken|panic"
    r"|segfault|doesn't work|not working|won't (?:start|build|compile|run)|ENOENT|EACCES"
    r"|cannot find|can't find|no such file|exit code [1-9]|(?:is|are) not (?:being )?(?:set|shown"
    r"|displayed|loaded|found|saved|applied|recogni[sz]ed)(?: correctly| properly)?|incorrect"
    r"|undefined|unable to|timed out|times out|hangs|freezes|Fehler|schlägt fehl|fehlgeschlagen"
    r"|kaputt|stürzt ab|funktioniert nicht|geht nicht|falla|fallan|falló|fallo|no funciona"
    r"|se rompe|se cae|excepción|no compila|no arranca)\b|エラー|失敗|落ち|クラッシュ|動かない"
    r"|動きません|例外|报错|错误|失败|崩溃|异常|挂了|跑不起来",
    re.I,
)
_FIX = re.compile(
    r"\b(?:the (?:issue|problem|bug|cause|culprit|error) (?:was|is)|root cause|caused by"
    r"|was missing"
    r"|the fix|fixed (?:it|this|the)|i(?:'ve| have)? (?:fixed|changed|updated|added|removed"
    r"|replaced|switched|moved)|this fixes|ursache|behoben|el problema era|la causa (?:era|es)"
    r"|se debía a|se debia a|lo arreglé|lo arregle|he corregido|corregí)\b"
    r"|原因|修正しました|直しました|修复|改成",
    re.I,
)
_CONFIRMED = re.compile(
    r"\b(?:(?:that|this|it)\s+(?:fixed|solved|did)\s+(?:it|the trick)|(?:works|working|runs|passes"
    r"|passing|builds)\s+(?:now|again)|that worked|(?:problem|issue|bug)\s+(?:solved|fixed|gone)"
    r"|fixed now|it'?s fixed|that (?:did|was) it|(?:now )?it works now|now it works"
    r"|works (?:perfectly|great|fine) now|it'?s working now|(?:jetzt|nun)\s+(?:geht|geht's|gehts"
    r"|funktioniert|läuft|klappt)"
    r"|(?:geht|funktioniert|läuft|klappt)\s+(?:jetzt|wieder)"
    r"|das hat(?:'s| es)? (?:gelöst|behoben)|ya funciona|ahora funciona|funciona (?:ahora|ya)"
    r"|se arregló|se arreglo|eso lo arregló|eso lo arreglo|(?:ya|ahora) compila)\b"
    r"|直りました|直った|解決しました|解決した|動きました|動くようになりました|うまくいきました"
    r"|修好了|解决了|能用了|可以用了|正常了|跑通了|没问题了",
    re.I,
)
_STILL_BROKEN = re.compile(
    r"\b(?:still|but|not|doesn't|isn't|except|nicht|noch|aber|todavía|todavia|pero|sigue|aún)\b"
    r"|まだ|けど|けれど|でも|が、|還|还|但|不行",
    re.I,
)


def _first_matching_line(text: str, pattern: re.Pattern[str]) -> str:
    for line in text.split("\n"):
        if pattern.search(line):
            return line.strip()
    return ""


def _first_matching_sentence(text: str, pattern: re.Pattern[str]) -> str:
    for sentence in sentences(text):
        if pattern.search(sentence.text):
            return sentence.text
    return ""


def _is_confirmation(text: str) -> bool:
    prose = " ".join(text.split())
    if "?" in prose or "？" in prose or _STILL_BROKEN.search(prose):
        return False
    size = len(CJK.findall(prose)) // 2 if CJK.search(prose) else len(prose.split())
    return size <= MAX_CONFIRM_WORDS and bool(_CONFIRMED.search(prose))


def rule_gotcha(window: Window) -> Iterator[tuple[str, str, tuple[Message, ...]]]:
    """Seed 002 phase 3 topics scan: a failure and the fix the user confirmed.

    In one window: a user message reporting a failure, then the assistant's
    reply naming a cause or fix, then the user's next message confirming it
    ("that fixed it", "works now", 直りました, 修好了, "jetzt geht's", "ya
    funciona") with no "still"/"but". Yields (failure line, fix sentence, the
    three messages). Only in technical context: a gotcha is a coding lesson.
    """
    if not window.technical_context:
        return
    messages = window.messages
    for index, confirm in enumerate(messages):
        if confirm.role != "user" or not _is_confirmation(confirm.text):
            continue
        replies = list(takewhile(lambda m: m.role == "assistant", reversed(messages[:index])))
        report_at = index - len(replies) - 1
        if not replies or report_at < 0:
            continue
        failure = _first_matching_line(messages[report_at].text, _FAILURE)
        fixer = next((m for m in replies if _FIX.search(m.text)), None)
        fix = _first_matching_sentence(fixer.text, _FIX) if fixer is not None else ""
        if failure and fixer is not None and fix:
            yield failure, fix, (messages[report_at], fixer, confirm)
