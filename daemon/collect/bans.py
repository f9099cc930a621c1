"""Bans and roles in the heuristic extractor (seed 002 phase 3 topics scan; issue 11 item 1).

What the user rules out, or the part the assistant is to play: an emphatic
ban ("No X!"), a joint refusal ("let's not ..."), a ban on a way of working
("don't guess", "don't overengineer"), a ban stated as a fact ("force
pushes are not allowed"), a habit to end ("stop adding emojis"), a role
("act as a senior developer") and the language to answer in. Each rule is
one function ``Sentence -> Hit | None`` with its patterns per language
(English, German, Spanish, Chinese, Japanese) beside it; the shared helpers
are in ``dreamd.collect.norms``.

Invariants:

- a ban names a kind of thing or a way of working; "No errors!" and "No
  problem!" are reports and replies, "don't explain this function" is about
  the thing at hand;
- a clause that points at the moment ("let's not do that now") is not a rule;
- pure functions of the sentence: no clock, no I/O, no randomness.
"""

# The rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import re
from collections.abc import Callable

from dreamd.collect.lexicon import (
    DE_MANNER,
    EN_MANNER,
    ES_MANNER,
    NOT_A_RULE_NOUNS,
    ROLE,
    ZH_JA_MANNER,
    alternation,
)
from dreamd.collect.norms import IMPERATIVES, clean, first_match, generic, noun_phrase
from dreamd.collect.rules import DEICTIC, Hit, latin_words
from dreamd.collect.scope import points_at_moment
from dreamd.collect.sentences import CJK, Sentence

__all__ = [
    "BAN_RULES",
    "rule_forbidden",
    "rule_language",
    "rule_lets_not",
    "rule_manner",
    "rule_no_exclaim",
    "rule_stop",
]


# --- "No X!" ----------------------------------------------------------------------------------

_NO_EXCLAIM = re.compile(
    r"^(?:no(?:\s+more)?|keine?n?|nada de|sin|no más|no mas|cero)\s+([^!！]{2,40}?)\s*[!！]+$", re.I
)
_NO_EXCLAIM_CJK = re.compile(
    r"^(?:不要|禁止|别|不许|不准)(?:再)?(.{2,12}?)[！!]+$|^(.{2,12}?)(?:は|も)?(?:禁止|ダメ|だめ|厳禁)"
    r"(?:です)?[！!]+$"
)


def rule_no_exclaim(s: Sentence) -> Hit | None:
    """An emphatic ban: "No X!" as a sentence of its own, exclamation mark and all (issue 11).

    "No print statements!", "No more emojis!", "Keine Emojis!", "¡Nada de mocks!",
    禁止硬编码！, 絵文字は禁止！ The exclamation makes it a rule; "No errors!"
    and "No problem!" are reports and replies (``NOT_A_RULE_NOUNS``).
    """
    text = s.masked.strip().lstrip("¡")
    found = _NO_EXCLAIM.match(text) or _NO_EXCLAIM_CJK.match(text)
    if found is None:
        return None
    what = next(group for group in found.groups() if group)
    if found.re is _NO_EXCLAIM_CJK:
        return None if DEICTIC.search(what) else Hit("no_exclaim", "Rule", "feedback")
    words = latin_words(what)
    if not noun_phrase(what) or NOT_A_RULE_NOUNS.intersection(words[-1:]):
        return None
    return Hit("no_exclaim", "Rule", "feedback")


# --- "let's not ..." --------------------------------------------------------------------------

_LETS_NOT = (
    re.compile(r"^let'?s\s+not\s+([a-z][\w-]*)\s+(.{3,})$", re.I),
    re.compile(
        r"^lass(?:t)?\s+uns\s+(.{3,}?)\s+nicht\s+(.{3,})$|^lass(?:t)?\s+uns\s+nicht\s+(.{6,})$",
        re.I,
    ),
    re.compile(
        r"^(?:mejor\s+)?no\s+(?:dejemos|hagamos|pongamos|usemos|escribamos|agreguemos|añadamos"
        r"|anadamos|mezclemos|subamos|toquemos|cambiemos|compliquemos)\s+(.{3,})$",
        re.I,
    ),
    re.compile(r"^我们(?:不要|别|不必)(.{4,})$"),
    re.compile(
        r"^(.{4,}?)(?:のはやめましょう|はやめましょう|しないようにしましょう|ないようにしましょう)$"
    ),
)


def rule_lets_not(s: Sentence) -> Hit | None:
    """A joint refusal of a way of working: "let's not ..." (issue 11 item 1).

    "Let's not leave the docs to the end", "Lass uns die Tests nicht
    überspringen", "no dejemos las pruebas para el final", 我们不要跳过代码审查,
    テストを後回しにするのはやめましょう. "Let's not do that now" points at the moment.
    """
    found = first_match(s, _LETS_NOT)
    if found is None or points_at_moment(clean(s.core)) or DEICTIC.search(found.group(0)[-12:]):
        return None
    return Hit("lets_not", "Rule", "feedback")


# --- "don't guess", "act as a developer" ------------------------------------------------------

_MANNER = (
    re.compile(
        rf"^(?:please\s+)?(?:don'?t|do not|never|stop)\s+(?:ever\s+)?(?:{alternation(EN_MANNER)})"
        r"(?:ing)?\b(?P<rest>.*)$",
        re.I,
    ),
    re.compile(
        rf"^(?:bitte\s+)?nicht\s+(?:{alternation(DE_MANNER)})\b(?P<rest>.*)$"
        rf"|^(?:{alternation(DE_MANNER)})\s+(?:bitte\s+)?nicht\b(?P<rest2>.*)$",
        re.I,
    ),
    re.compile(
        rf"^no\s+(?:me\s+|te\s+|lo\s+|la\s+|nos\s+)?(?:{alternation(ES_MANNER)})\b(?P<rest>.*)$",
        re.I,
    ),
    re.compile(
        rf"^(?:请)?(?:你)?(?:不要|别|不用)(?:再)?(?:{ZH_JA_MANNER})|(?:{ZH_JA_MANNER})しないで"
    ),
    re.compile(rf"^(?:please\s+)?(?:{ROLE})\s*(?:[\w'-]+\s*){{0,4}}$", re.I),
)
#: What may follow a banned manner: nothing, a generic object, or the next instruction.
_MANNER_REST = re.compile(
    rf"^\s*$|^\s*[,;:–—-]|^\s+(?:things|stuff|anything|everything|so much|too much|me|it)\b"
    rf"|^\s+(?:{ROLE})|^\s+(?:{alternation(IMPERATIVES)})\b",
    re.I,
)


def rule_manner(s: Sentence) -> Hit | None:
    """A ban on a way of working, or a role to take (issue 11 item 1).

    "Don't guess", "don't overengineer", "nicht raten", "no adivines,
    pregunta", 不要瞎猜, 推測しないでください; "act as a senior
    developer", "actúa como revisor". "Don't explain this function" is about
    the thing at hand: only nothing, a generic object or a next instruction
    may follow the verb.
    """
    found = first_match(s, _MANNER)
    if found is None or points_at_moment(clean(s.core)):
        return None
    groups = found.groupdict()
    rest = groups.get("rest") or groups.get("rest2") or ""
    return Hit("manner", "Rule", "feedback") if _MANNER_REST.match(rest) else None


# --- "X is not allowed" -----------------------------------------------------------------------

_FORBIDDEN = (
    re.compile(
        r"^(?P<what>.{3,50}?)\s+(?:is|are)\s+(?:strictly\s+|absolutely\s+)?(?:not allowed|forbidden"
        r"|prohibited|banned|off[- ]limits|not permitted|not ok|not okay|a no-go)$",
        re.I,
    ),
    re.compile(
        r"^(?P<what>.{3,50}?)\s+(?:ist|sind)\s+(?:streng\s+)?(?:verboten|nicht erlaubt|tabu"
        r"|untersagt)$",
        re.I,
    ),
    re.compile(
        r"^(?P<what>.{3,50}?)\s+(?:está|esta|están|estan)\s+(?:prohibid[oa]s?|vetad[oa]s?)$"
        r"|^(?P<w2>.{3,50}?)\s+no\s+(?:está|esta|están|estan)\s+permitid[oa]s?$",
        re.I,
    ),
    re.compile(r"^(?:不允许|不准|严禁)(?P<what>.{2,20})$"),
    re.compile(
        r"^(?P<what>.{2,20}?)(?:は)(?:禁止されています|使用禁止です|厳禁です|許可されていません)$"
    ),
)


def rule_forbidden(s: Sentence) -> Hit | None:
    """A ban stated as a fact of the project: "force pushes are not allowed" (issue 11 item 1).

    "Direct commits to main are forbidden", "Force-Pushes sind verboten", "los
    force push están prohibidos", 严禁硬编码密钥, 本番DBへの直接接続は禁止されています.
    What is banned must be a kind of thing; "this is not allowed" complains
    about the thing at hand.
    """
    found = first_match(s, _FORBIDDEN)
    if found is None:
        return None
    what = found.groupdict().get("what") or found.groupdict().get("w2") or ""
    if CJK.search(what):
        return None if DEICTIC.search(what) else Hit("forbidden", "Rule", "feedback")
    return (
        Hit("forbidden", "Rule", "feedback")
        if generic(what) and not points_at_moment(what)
        else None
    )


# --- "answer in German" -------------------------------------------------------------------------

_LANGUAGES = (
    r"english|german|spanish|french|italian|portuguese|dutch|polish|russian|chinese|japanese"
    r"|korean|deutsch|englisch|spanisch|französisch|español|espanol|inglés|ingles|alemán|aleman"
    r"|francés|frances|chino|japonés|japones"
)
_LANGUAGE = (
    re.compile(
        rf"^(?:please\s+)?(?:always\s+)?(?:answer|reply|respond|write|talk|speak|communicate)"
        rf"(?:\s+to\s+me)?\s+(?:only\s+)?in\s+(?:{_LANGUAGES})\b",
        re.I,
    ),
    re.compile(
        rf"^(?:bitte\s+)?(?:antworte|schreibe|schreib|sprich|rede)\s+(?:bitte\s+|immer\s+|mir\s+)*"
        rf"(?:auf|in)\s+(?:{_LANGUAGES})\b",
        re.I,
    ),
    re.compile(
        rf"^(?:por favor\s+)?(?:responde|responda|contesta|conteste|escribe|escriba|habla|hable)"
        rf"\s+(?:siempre\s+|me\s+)*en\s+(?:{_LANGUAGES})\b",
        re.I,
    ),
    re.compile(
        r"^(?:请)?(?:你)?(?:一直|始终|总是)?用(?:中文|英文|英语|日语|德语)(?:回答|回复|交流|写)"
    ),
    re.compile(r"^(?:日本語|英語|中国語|ドイツ語)で(?:答えて|返答して|回答して|書いて|話して)"),
)


def rule_language(s: Sentence) -> Hit | None:
    """The language the assistant is to answer in: "answer in German" (issue 11 item 1).

    "Please reply in English", "Antworte bitte auf Deutsch", "responde siempre
    en español", 请用中文回答, 日本語で答えてください. "Write this comment in
    English" is about the thing at hand.
    """
    found = first_match(s, _LANGUAGE)
    if found is None or points_at_moment(clean(s.core)):
        return None
    return Hit("language", "Rule", "feedback")


# --- "stop adding X" ----------------------------------------------------------------------------

_STOP = (
    re.compile(r"^(?:please\s+)?stop\s+(?P<verb>[a-z]+ing)\b(?P<what>.*)$", re.I),
    re.compile(r"^hör(?:e)?\s+auf,?\s+(?P<what>.{3,60}?)\s+(?:zu\s+\w+|\w+zu\w+)$", re.I),
    re.compile(r"^(?:por favor\s+)?deja\s+de\s+(?P<verb>\w+(?:ar|er|ir))\b(?P<what>.*)$", re.I),
    re.compile(r"^(?:请)?(?:你)?(?:别再|不要再)(?P<what>.{2,20}?)了?$"),
    re.compile(
        r"^(?P<what>.{2,20}?)(?:するのはやめてください|するのをやめてください|のはやめてください)$"
    ),
)


def rule_stop(s: Sentence) -> Hit | None:
    """A habit of the assistant the user wants ended: "stop adding emojis" (issue 11 item 1).

    "Stop adding comments to every line", "hör auf, überall Kommentare
    einzufügen", "deja de añadir comentarios obvios", 别再加表情了,
    絵文字を付けるのはやめてください. "Stop doing that" and "stop the server"
    (no habit, or one order) plant nothing.
    """
    found = first_match(s, _STOP)
    if found is None:
        return None
    what = found.groupdict().get("what") or ""
    if DEICTIC.search(what) or points_at_moment(what) or not what.strip():
        return None
    return Hit("stop", "Rule", "feedback")


#: The rules of this module in the order the heuristic tries them.
BAN_RULES: tuple[Callable[[Sentence], Hit | None], ...] = (
    rule_manner,
    rule_no_exclaim,
    rule_lets_not,
    rule_forbidden,
    rule_language,
    rule_stop,
)
