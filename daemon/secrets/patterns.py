"""The detectors of the secret filter: one compiled pattern, and a check, per kind of secret.

What counts as a secret (one detector each, most specific first):

- provider tokens by their published prefixes: AWS access key ids
  (``AKIA``/``ASIA``/``ABIA``/``ACCA``) and secret keys in an assignment,
  Anthropic ``sk-ant-``, OpenAI ``sk-``/``sk-proj-``, GitHub ``gh[pousr]_`` and
  ``github_pat_``, GitLab ``glpat-`` and kin, Slack ``xox?-`` and webhooks,
  Google ``AIza`` and ``GOCSPX-``, Stripe secret and restricted keys
  (``sk_``/``rk_`` ``live``/``test``, webhook ``whsec_``), npm ``npm_``,
  Hugging Face ``hf_``, PyPI ``pypi-AgE``, SendGrid, DigitalOcean, Shopify,
  Telegram bot tokens, Azure ``AccountKey=`` / ``SharedAccessKey=`` / SAS
  ``sig=``;
- JWTs (three base64url parts whose first two decode to JSON objects, the
  header naming ``alg`` or ``typ``);
- PEM private key blocks (a header followed by key material; a bare header in
  prose is not a secret);
- URLs and connection strings with ``user:password@``;
- ``Authorization: Bearer|Basic|token …`` and ``Bearer <token>``;
- AWS ARNs (``arn:aws…``), which seed 002 names explicitly; AWS-managed ARNs
  (account ``aws``, e.g. ``arn:aws:iam::aws:policy/ReadOnlyAccess``) are public
  and not flagged;
- ``KEY=value``, ``key: value``, ``"key": "value"`` where the key name is
  sensitive (password, secret, token, api key, private key, credential, …) and
  the value is a literal, not a placeholder, reference or type.

Decisions (noise is worse than omission, seed rule 6):

- Stripe publishable keys (``pk_live_``) are public by design: not flagged.
- No generic high-entropy rule: hashes, UUIDs, git SHAs and base64 of
  ordinary data are not secrets. A bare password in prose with no key name
  (``the password is hunter2``) is not found either.

Which key names and values count in an assignment is decided in
``dreamd.secrets.values``; ``dreamd.secrets`` merges the hits.

Invariants:

- every pattern starts at a boundary, so a token is never found from its
  middle; after a rejected hit the search resumes one character after its
  start, so a stand-in cannot hide a real token it swallowed;
- the work stays linear in the text: a value is read up to ``MAX_VALUE``
  characters and judged on its first ``MAX_JUDGED``;
- a detector with hints (the literals every hit holds: a provider's prefix, a
  program's name) is tried only on a text holding one; one combined search
  tells first whether a text holds any, which keeps ~110 detectors about as
  fast as the first 26 were (16,000 vs 20,000 lines/s of Python source, CPU
  time on a shared machine);
- ``KINDS`` lists every kind reported, most specific first, and ``PRIORITY``
  ranks them in that order.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator, Mapping

from dreamd.secrets.commands import COMMAND_DETECTORS
from dreamd.secrets.detector import LEFT, RIGHT, Detector, literal_hints
from dreamd.secrets.providers import FIRST, PROVIDERS, Provider
from dreamd.secrets.values import (
    PLACEHOLDER_MARKS,
    STAND_IN,
    is_placeholder,
    is_placeholder_body,
    is_secret_value,
    key_strength,
    looks_generated,
)

__all__ = ["KINDS", "MAX_JUDGED", "MAX_VALUE", "OPENAI_MIN_BODY", "PRIORITY", "raw_matches"]

#: Minimum body length of an OpenAI ``sk-`` key (legacy keys have 48, project keys more).
OPENAI_MIN_BODY = 32
#: The longest quoted value read after a sensitive key (an AWS session token is about 1,000).
MAX_VALUE = 4096
#: How much of a value is judged; a longer value is judged by its start, covered whole.
MAX_JUDGED = 512

# --- detectors --------------------------------------------------------------------


_L = LEFT
_R = RIGHT


def _openai_ok(match: re.Match[str]) -> bool:
    """``sk-`` is a short prefix (CSS classes use it): the body must be long and base62-random."""
    body = match.group(1)
    return len(body) >= OPENAI_MIN_BODY and looks_generated(body, mixed_case=True)


def _bearer_ok(match: re.Match[str]) -> bool:
    """A bearer token holds digits and letters; ``Bearer tokens expire`` is prose."""
    return looks_generated(match.group("value"), mixed_case=False)


def _b64url_json(part: str) -> object:
    padded = part + "=" * (-len(part) % 4)
    try:
        return json.loads(base64.urlsafe_b64decode(padded))
    except (binascii.Error, ValueError):
        return None


def _jwt_ok(match: re.Match[str]) -> bool:
    """A JWT's header and payload are base64url JSON objects; the header names alg or typ."""
    header, payload = _b64url_json(match.group(1)), _b64url_json(match.group(2))
    return (
        isinstance(header, dict)
        and isinstance(payload, dict)
        and bool({"alg", "typ", "enc"} & header.keys())
    )


def _authorization_ok(match: re.Match[str]) -> bool:
    """``Basic`` credentials decode to ``user:password``; ``token`` ones look generated."""
    value = match.group("value")
    if match.group("scheme").lower() != "basic":
        return looks_generated(value, mixed_case=False)
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    user, colon, password = decoded.decode("latin-1").partition(":")
    return bool(colon and password and user.isprintable() and not is_placeholder(password))


#: Passwords in documentation URLs (``postgres://user:password@localhost``).
_URL_STAND_INS = frozenset({"password", "passwd", "pass", "pwd", "secret", "changeme", "token"})


def _url_password_ok(match: re.Match[str]) -> bool:
    """Any password in a URL counts unless it is a stand-in (``:password@``, ``:${PW}@``)."""
    value = match.group("value")
    lowered = value.lower()
    if lowered in _URL_STAND_INS or STAND_IN.search(value):
        return False
    return not any(mark in lowered for mark in PLACEHOLDER_MARKS)


def _arn_ok(match: re.Match[str]) -> bool:
    """AWS-managed ARNs (account ``aws``) are public; every other ARN counts (seed 002)."""
    return match.group("account") != "aws"


def _value_ok(match: re.Match[str]) -> bool:
    return not is_placeholder_body(match.group("value"))


_PEM_HEADER = r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_FOOTER = r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_NL = r"(?:\s|\\[rn])"  # a real line break or a JSON-escaped one
_PEM = re.compile(
    f"{_PEM_HEADER}(?:.{{0,20000}}?{_PEM_FOOTER}"  # a whole block
    f"|{_NL}*(?:[\\w-]+: [^\\n\\\\]*(?:\\n|\\\\n))*"  # or a header, Proc-Type lines,
    f"{_NL}*[A-Za-z0-9+/=]{{40,}}(?:{_NL}+[A-Za-z0-9+/=]{{16,}})*)",  # and key material
    re.S,
)
_JWT = re.compile(
    f"{_L}(eyJ[A-Za-z0-9_-]{{6,}})\\.(eyJ[A-Za-z0-9_-]{{2,}})\\.[A-Za-z0-9_-]*(?![\\w.-])"
)
_AWS_SECRET = re.compile(
    r"(?i)(?:aws[\w.-]{0,30}?(?:secret|sk)[\w.-]{0,20}?|secret_?access_?key)"
    r"[\"']?\s*(?:[:=]|=>)\s*[\"']?(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
_OPENAI = re.compile(f"{_L}sk-(?:proj-|svcacct-|admin-)?([A-Za-z0-9_-]{{20,}})(?![\\w-])")
_AZURE_KEY = re.compile(r"(?i)(?:AccountKey|SharedAccessKey)=(?P<value>[A-Za-z0-9+/]{20,}={0,2})")
_AZURE_SAS = re.compile(r"[?&]sig=(?P<value>[A-Za-z0-9%+/]{20,}(?:=|%3[dD]){0,2})")
_AUTHORIZATION = re.compile(
    r"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?P<scheme>basic|token)\s+"
    r"(?P<value>[A-Za-z0-9._~+/-]{8,}=*)"
)
_BEARER = re.compile(f"(?i){_L}bearer\\s+(?P<value>[A-Za-z0-9._~+/-]{{12,}}=*)")
_URL_PASSWORD = re.compile(r"://[^\s:/?#@'\"<>]*:(?P<value>[^\s/?#@'\"<>]+)@(?=[\w\[.-])")
_AWS_ARN = re.compile(
    f"{_L}arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(?P<account>\\d{{12}}|aws)?:"
    r"[^\s\"'`<>]{0,1023}[^\s\"'`<>.,;:)\]}]"
)
#: A key, its closing quote, the separator and the value's opening quote; the value is
#: read only for a sensitive key, so ``a=a=a=…`` costs no more than its length.
_ASSIGNMENT = re.compile(
    r"(?<![\w.-])(?P<key>-{0,2}[A-Za-z_][\w.-]{0,63}?)[\\\"'`*]{0,3}"
    r"(?P<pad>[ \t]*)(?P<sep>:=|=>|=(?!=)|:(?![:/]))(?P<pad2>[ \t]*)"
    r"\\?(?P<quote>[\"'`]?)"
)
_BARE = r"[^\s\"'`,;&)}\]<>\\]"
_BARE_VALUE = re.compile(f"{_BARE}{{1,{MAX_VALUE}}}")
_BARE_RUN = re.compile(f"{_BARE}*")
_QUOTED_VALUE = re.compile(rf"(?P<value>[^\"'`\r\n\\]{{0,{MAX_VALUE}}})\\?(?P<close>[\"'`])")


def _body_ok(match: re.Match[str]) -> bool:
    """A token whose body (group 1) is not a stand-in."""
    return not is_placeholder_body(match.group(1))


def _mixed_body_ok(match: re.Match[str]) -> bool:
    """A token with a short or word-like prefix: its body must look generated, both cases."""
    return looks_generated(match.group(1), mixed_case=True)


#: Literals the rows without a literal prefix always hold.
_BODY_HINTS = {
    "mailchimp-key": ("-us",),
    "terraform-token": (".atlasv1.",),
    "azure-client-secret": ("Q~",),
}


def _prefixed(row: Provider) -> Detector:
    """A provider token: ``prefix`` then ``body`` (group 1, checked against stand-ins)."""
    pattern = re.compile(f"{_L}{row.prefix}({row.body}){row.tail}")
    check = _mixed_body_ok if row.mixed else _body_ok
    hints = literal_hints(row.prefix) or _BODY_HINTS.get(row.kind, ())
    return Detector(row.kind, pattern, 0, check, hints)


#: Every detector, most specific first (the first kind names a merged match).
_DETECTORS: tuple[Detector, ...] = (
    Detector("private-key", _PEM),
    Detector("jwt", _JWT, 0, _jwt_ok),
    *(_prefixed(row) for row in PROVIDERS[:FIRST]),
    Detector("aws-secret-key", _AWS_SECRET, "value", _value_ok),
    *(_prefixed(row) for row in PROVIDERS[FIRST:]),  # "sk-or-v1-" before OpenAI's "sk-"
    Detector("openai-key", _OPENAI, 0, _openai_ok),
    Detector("azure-key", _AZURE_KEY, "value"),
    Detector("azure-sas", _AZURE_SAS, "value"),
    Detector("authorization", _AUTHORIZATION, "value", _authorization_ok),
    Detector("bearer-token", _BEARER, "value", _bearer_ok),
    Detector("url-credentials", _URL_PASSWORD, "value", _url_password_ok),
    Detector("aws-arn", _AWS_ARN, 0, _arn_ok),
    *COMMAND_DETECTORS,
)
_ASSIGNMENT_KIND = "sensitive-assignment"

#: One search for every detector's hints: a text that holds none skips them all.
_HINTS = re.compile(
    "|".join(sorted({re.escape(h) for d in _DETECTORS if not d.folded for h in d.hints}))
)
_FOLDED_HINTS = re.compile(
    "|".join(sorted({re.escape(h) for d in _DETECTORS if d.folded for h in d.hints})), re.I
)
_GENERIC_KINDS = tuple(detector.kind for detector in COMMAND_DETECTORS)
#: Every kind the filter reports, most specific first: a command's or a sentence's password
#: is named by the shape it has (``mysql -pghp_…`` is a GitHub token) before how it was given.
KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            *(d.kind for d in _DETECTORS if d.kind not in _GENERIC_KINDS),
            _ASSIGNMENT_KIND,
            *_GENERIC_KINDS,
        )
    )
)
PRIORITY: Mapping[str, int] = {kind: rank for rank, kind in enumerate(KINDS)}


def _spans(detector: Detector, text: str) -> Iterator[tuple[int, int]]:
    """The value spans of the detector's hits that pass its check.

    After a rejected hit the search resumes one character after its start, not
    after its end, so that a stand-in cannot hide a real token it swallowed.
    Every pattern starts at a boundary, so a token is never found from its middle.
    """
    search = detector.pattern.search
    match = search(text)
    while match is not None:
        if detector.check is None or detector.check(match):
            yield match.span(detector.group)
            match = search(text, max(match.end(), match.start() + 1))
        else:
            match = search(text, match.start() + 1)


def _assigned_value(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    """The value after a key's separator: up to its closing quote, or a bare run."""
    quote = match.group("quote")
    if quote:
        closed = _QUOTED_VALUE.match(text, match.end())
        return closed.span("value") if closed and closed.group("close") == quote else None
    bare = _BARE_VALUE.match(text, match.end())
    return bare.span() if bare else None


def _assignment_spans(text: str) -> Iterator[tuple[int, int]]:
    """Values assigned to sensitive key names (``KEY=value``, ``key: value``, JSON).

    The search goes on right after each separator, so a value that is itself an
    assignment (``password: SECRET_KEY=…``, ``"a": "SessionToken": "…"``) is
    looked into. Values are judged on their first ``MAX_JUDGED`` characters, which
    keeps ``password=password=…`` fast; an accepted bare value is covered to its
    end (``measured`` remembers the last run, so that stays linear).
    """
    measured = (0, 0)
    for match in _ASSIGNMENT.finditer(text):
        key, quote = match.group("key"), match.group("quote")
        strength = key_strength(key)
        span = _assigned_value(text, match) if strength else None
        if span is None:
            continue
        start, end = span
        tight = not quote and match.group("sep") == "=" and match.group("pad", "pad2") == ("", "")
        value = text[start : min(end, start + MAX_JUDGED)]
        if not is_secret_value(key, value, strength, quoted=bool(quote), tight=tight):
            continue
        if not quote and not measured[0] <= end <= measured[1]:
            run = _BARE_RUN.match(text, end)
            measured = (end, run.end() if run else end)
        yield start, end if quote else measured[1]


def raw_matches(text: str) -> Iterator[tuple[int, int, str]]:
    """Every accepted hit as (start, end, kind), overlapping and unordered."""
    hinted = _HINTS.search(text) is not None, _FOLDED_HINTS.search(text) is not None
    for detector in _DETECTORS:
        # most texts hold no provider's prefix and no program's name: skip those cheaply
        if detector.hints and not (hinted[detector.folded] and detector.may_match(text)):
            continue
        for start, end in _spans(detector, text):
            if end > start:
                yield start, end, detector.kind
    for start, end in _assignment_spans(text):
        yield start, end, _ASSIGNMENT_KIND
