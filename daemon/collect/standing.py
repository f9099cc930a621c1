"""Standing instructions of the heuristic extractor (seed 002 phase 3 topics scan).

Instructions the user marks as lasting: "from now on ...", "remember that
...", "<thing> must always ...", in English, German, Spanish, Japanese and
Chinese. The ``Hit`` type, ``CONFIDENCE`` and the always/never and don't
rules are in ``dreamd.collect.rules``.

Invariants:

- a rule is a pure function ``Sentence -> Hit | None`` over the masked core;
- "remember to X" needs a standing cue (always, every time, before each ...):
  "remember to commit" is the task at hand;
- a requirement's subject is a noun phrase, never a pronoun or a pointer.
"""

# The rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import re

from dreamd.collect.lexicon import (
    DE_IMPERATIVES,
    EN_STOP,
    EN_VERBS,
    ES_IMPERATIVES,
    ES_PROHIBITIVES,
    wordset,
)
from dreamd.collect.rules import (
    DEICTIC,
    JA_GREETING,
    Hit,
    en_directive,
    has_content,
    ja_clause,
    ja_request,
    latin_words,
)
from dreamd.collect.sentences import MIN_WORDS, TRAILING_MARKS, Sentence, sized

__all__ = ["rule_from_now_on", "rule_must", "rule_remember"]


_EN_FROM_NOW = re.compile(
    r"^(?:from now on|going forward|moving forward|from here on(?: out)?|in (?:the )?future"
    r"|henceforth)\s*,?\s*(.+)$|^(.+?)\s*,?\s*(?:from now on|going forward|moving forward"
    r"|from here on(?: out)?|in (?:the )?future|henceforth)\s*[.!]*$",
    re.I,
)
_EN_WE_YOU = re.compile(
    r"^(?:we|you)\s+(?:(?:will|'ll|should|must|are going to|'re going to|always|never|only)\s+)?"
    r"([a-z][a-z-]*)",
    re.I,
)
_DE_FROM_NOW = re.compile(
    r"\b(?:ab jetzt|ab sofort|von nun an|von jetzt an|künftig|zukünftig|in zukunft|ab heute)\b",
    re.I,
)
_ES_FROM_NOW = re.compile(
    r"^(?:a partir de ahora|de ahora en adelante|desde ahora|en adelante|de aquí en adelante"
    r"|de aqui en adelante|a partir de hoy|en el futuro)\s*,?\s*(.+)$",
    re.I,
)
_ES_WE = re.compile(
    r"^(?:siempre\s+|nunca\s+|no\s+)?(?:usamos|usaremos|vamos a|escribimos|hacemos)\b", re.I
)
_JA_FROM_NOW = re.compile(r"今後は?|これからは|以後は?|以降は|次回から|これ以降")
_ZH_FROM_NOW = re.compile(
    r"^(?:从现在开始|从今以后|从今天起|从现在起|今后|以后|往后)[，,]?"
    r"(?:都|请|一律|要|必须|不要|别|统一|全部|一定|总是)(.{2,})"
)


def _en_directive_ok(rest: str) -> bool:
    """An English directive: an imperative verb, or "we/you (will|should|...) <verb>"."""
    _, rest = en_directive(rest.strip())
    found = re.match(r"^(?:(?:always|never|only|don'?t|do not)\s+)?([a-z][a-z-]*)", rest, re.I)
    verb = found.group(1).split("-")[0].lower() if found else ""
    if verb in EN_VERBS:
        return has_content(rest[found.end() :] if found else "", EN_STOP)
    we_you = _EN_WE_YOU.match(rest)
    if we_you is None or we_you.group(1).split("-")[0].lower() not in EN_VERBS:
        return False
    return has_content(rest[we_you.end() :], EN_STOP)


def _es_directive_ok(rest: str) -> bool:
    """A Spanish directive: an imperative, "no/siempre/nunca" + verb, or "usamos/vamos a"."""
    words = latin_words(rest)
    if len(words) < MIN_WORDS:
        return False
    lead = words[1] if words[0] in ("siempre", "nunca", "no") and len(words) > 1 else words[0]
    return lead in ES_IMPERATIVES or lead in ES_PROHIBITIVES or bool(_ES_WE.match(rest))


def rule_from_now_on(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a standing instruction ("from now on ...", "going forward").

    German "ab jetzt/ab sofort/künftig", Spanish "a partir de ahora/de ahora en
    adelante", Japanese 今後は/これからは + a request ending, Chinese
    从现在开始/以后都 … (never 以后再说, "later").
    """
    found = _EN_FROM_NOW.match(s.core)
    if found:
        return (
            Hit("from_now_on", "Rule", "feedback")
            if _en_directive_ok(found.group(1) or found.group(2))
            else None
        )
    if _DE_FROM_NOW.search(s.core):
        rest = _DE_FROM_NOW.sub(" ", s.core).strip(" ,")
        words = latin_words(rest)
        starts = bool(words) and (
            words[0] in DE_IMPERATIVES
            or words[0] in ("bitte", "immer", "stets", "nie", "niemals", "nicht", "keine")
            or bool(re.match(r"^\w+en\s+(?:wir|sie)\b", rest, re.I))
            or (words[0] == "wir" and len(words) > 1 and words[1].endswith("en"))
        )
        return (
            Hit("from_now_on", "Rule", "feedback") if starts and len(words) >= MIN_WORDS else None
        )
    found = _ES_FROM_NOW.match(s.core)
    if found:
        return Hit("from_now_on", "Rule", "feedback") if _es_directive_ok(found.group(1)) else None
    clause = ja_clause(s.core)
    found = _JA_FROM_NOW.search(clause)
    we_will = re.search(r"(?:を使います|にします|でいきます|で行きます)$", clause)
    if found and (ja_request(clause) or (we_will and not JA_GREETING.search(clause))):
        return Hit("from_now_on", "Rule", "feedback", found.start())
    return Hit("from_now_on", "Rule", "feedback") if _ZH_FROM_NOW.match(clause) else None


_EN_REMEMBER = re.compile(
    r"^(?:always\s+)?(?:remember|keep in mind|for future reference|make a note)"
    r"(?:\s+(that)\b|\s*[:,\-–—]|\s+(to)\b)\s*(.+)$",
    re.I,
)
_EN_EVERY_TIME = re.compile(
    r"\b(?:always|every time|each time|whenever|before (?:every|each|any)|after (?:every|each)"
    r"|in (?:the )?future)\b",
    re.I,
)
_ES_REMEMBER = re.compile(
    r"^(?:recuerda|recuerde|ten en cuenta|tenga en cuenta|acuérdate de|acuerdate de|no olvides"
    r"|no olvide|para futuras referencias)\s*(?:que\b)?\s*[:,]?\s*(.+)$",
    re.I,
)
_DE_REMEMBER = re.compile(
    r"^(?:merk(?:e)? dir|merken sie sich|denk(?:e)? daran|denken sie daran|zur erinnerung"
    r"|für die zukunft)\s*[:,]?\s*(?:dass\s+)?(.+)$",
    re.I,
)


def rule_remember(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: something the user asks to be remembered.

    "Remember that ...", "remember: ...", "keep in mind that ..."; "remember to X"
    only with a standing cue (always, every time, before each ...). German "merk
    dir/denk daran", Spanish "recuerda que/ten en cuenta que", Japanese
    覚えておいて, Chinese 记住.
    """
    found = _EN_REMEMBER.match(s.core)
    if found:
        to, rest = found.group(2), found.group(3)
        if to and not _EN_EVERY_TIME.search(rest):
            return None
        enough = len(rest.split()) >= MIN_WORDS and has_content(rest, EN_STOP)
        return Hit("remember", "Rule", "feedback") if enough else None
    found = _DE_REMEMBER.match(s.core) or _ES_REMEMBER.match(s.core)
    if found:
        enough = len(found.group(1).split()) >= MIN_WORDS
        return Hit("remember", "Rule", "feedback") if enough else None
    clause = ja_clause(s.core)
    found = re.search(
        r"覚えて(?:お|と)いて(?:ください|下さい|ほしい|ね)?|^(?:请)?(?:你)?记住", clause
    )
    if found:
        rest = (clause[: found.start()] + clause[found.end() :]).strip("：:、，, ")
        if sized(rest) and not DEICTIC.search(rest):
            return Hit("remember", "Rule", "feedback", found.start())
    return None


_EN_MUST = re.compile(
    r"^([\w`'./@#-]+(?:\s+[\w`'./@#-]+){0,5}?)\s+(?:must|should|need to|have to)\s+(?:always|never"
    r"|not ever)\s+([a-z][a-z-]*)(.*)$",
    re.I,
)
_PRONOUNS = wordset(
    """it this that these those they he she i you we there which what who something everything
    nothing someone one"""
)


_ES_MUST = re.compile(
    r"^([\w`'./@#-]+(?:\s+[\w`'./@#-]+){0,5}?)\s+(?:(?:debe|deben|tiene que|tienen que)\s+"
    r"(?:siempre|nunca|jamás|jamas)|(?:nunca|jamás|jamas)\s+(?:debe|deben))\s+(\w+)(.*)$",
    re.I,
)


def rule_must(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a standing requirement on a named thing.

    "Migrations must never drop a column", "the main branch should always build",
    Spanish "la rama main debe siempre compilar": the subject must be a noun
    phrase, not a pronoun or a pointer ("that should never happen" is a
    complaint, not a rule).
    """
    clause = s.core.rstrip(TRAILING_MARKS)
    found = _EN_MUST.match(clause) or _ES_MUST.match(clause)
    if not found or DEICTIC.search(s.core):
        return None
    subject = latin_words(found.group(1))
    if not subject or subject[0] in _PRONOUNS:
        return None
    return Hit("must", "Rule", "feedback")
