"""The secret filter (seed 002, safety rule 5): credential-shaped values are never stored.

Coding transcripts carry tokens, connection strings, ARNs and keys. Seed 002
says an extracted value that looks like a credential is discarded, and that
the same bar applies to every field that is stored. This module finds such
values with a curated set of compiled patterns (no ``detect-secrets``: its
eager mode flags ordinary prose, see ENGINEERING-NOTES "Secrets").

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

Decisions, each a precision choice (noise is worse than omission, seed rule 6):

- Stripe publishable keys (``pk_live_``) are public by design: not flagged.
- Placeholders are not secrets: empty values, ``<your-token>``, ``${VAR}``,
  ``$VAR``, ``{{var}}``, ``***``, ``xxxx``, ``changeme``, ``password``,
  ``your_api_key``, ``test-key``, documentation examples (``…EXAMPLE``), type
  names (``password: str``), code references (``settings.SECRET_KEY``,
  ``os.getenv(...)``, ``password=db_password``), file paths and URLs
  (``private_key: ~/.ssh/id_rsa``), versions.
- Key names are graded. Strong ones (password, secret, api/private/access key,
  credential, ``DB_PASS``) take any literal: a quoted or tight ``KEY=value``
  (shell, ``.env``, query string) of 6+ characters, or an unquoted value after a
  spaced separator (``password: x`` in YAML, which could also be a variable in
  code) that looks random (8+ characters with digits). Weak ones (``token``,
  ``authToken``, ``auth``, ``pat``; also lexer tokens, sentinels, modes) need a
  value that looks like a generated token: URL-safe alphabet, digits and letters.
  Descriptive names (``token_count``, ``secret_name``, ``password_file``,
  ``max_tokens``, ``dropped_secrets``) are not sensitive at all.
- A literal word under a strong key is still a credential
  (``POSTGRES_PASSWORD=postgres``, ``apiKey: 'ollama'``), and so is a URL
  password from documentation (``scott:tiger@``): they are credential-shaped.
- No generic high-entropy rule: hashes, UUIDs, git SHAs and base64 of
  ordinary data are not secrets. A bare password in prose with no key name
  (``the password is hunter2``) is not found either.

The filter never returns or logs a matched value: a ``SecretMatch`` holds the
kind, the span and a per-process keyed fingerprint.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, NamedTuple

from structlog.typing import EventDict

from dreamd.stores import MemoryItem

__all__ = [
    "KINDS",
    "FilterResult",
    "ItemFindings",
    "KeyStrength",
    "SecretMatch",
    "contains_secret",
    "filter_item",
    "find_secrets",
    "is_sensitive_key",
    "key_strength",
    "redact",
    "redact_log_event",
    "scan_item",
]

#: How surely a key name marks its value as a credential ("" for not at all).
KeyStrength = Literal["", "weak", "strong"]

#: Minimum length of a quoted or tight (``KEY=value``) literal under a sensitive key.
MIN_LITERAL = 6
#: Minimum length of an unquoted value after a spaced separator (``key: value``).
MIN_LOOSE = 8
#: Minimum body length of an OpenAI ``sk-`` key (legacy keys have 48, project keys more).
OPENAI_MIN_BODY = 32
#: A value made of fewer different characters than this is a stand-in (``xxxx``, ``0000``).
MIN_DISTINCT = 4
#: A value shorter than this that ends in ``-`` or ``_`` is a token prefix, not a token.
PREFIX_STUB = 12
#: The longest quoted value read after a sensitive key (an AWS session token is about 1,000).
MAX_VALUE = 4096
#: How much of a value is judged; a longer value is judged by its start, covered whole.
MAX_JUDGED = 512
#: Nesting depth the log processor walks; anything deeper is replaced, never passed through.
MAX_LOG_DEPTH = 16

# --- key names --------------------------------------------------------------------

#: Key-name words that name a credential outright.
_STRONG_PARTS = frozenset(
    {
        "password", "passwd", "passphrase", "passcode", "pwd", "secret", "credential",
        "credentials", "creds", "apikey", "accesskey", "secretkey", "privatekey", "clientsecret",
    }
)  # fmt: skip
#: Stems that make a key-name word strong as a substring (``PGPASSWORD``, ``dbSecret``).
_STRONG_STEMS = ("password", "passwd", "passphrase", "secret", "credential")
#: Key-name words that often name a credential but also lexer tokens, sentinels and
#: modes (``token``, ``authToken``, ``auth``, ``pat``): their values must look generated.
_WEAK_PARTS = frozenset({"token", "pat"})
#: Plurals name a collection or a count (``dropped_secrets``, ``max_tokens``), not a value.
_PLURALS = frozenset({"secrets", "passwords", "tokens", "keys"})
#: First words that turn a following ``key`` into a sensitive key (``api_key``, ``AccountKey``).
_KEY_QUALIFIERS = frozenset(
    {
        "api", "access", "secret", "private", "signing", "encryption", "master", "account",
        "auth", "app", "client", "session", "shared", "storage", "subscription", "license",
        "service", "webhook", "hmac", "jwt", "deploy",
    }
)  # fmt: skip
#: A last part that makes the key name a description of a secret, not the secret itself.
_NON_SECRET_SUFFIXES = frozenset(
    {
        "id", "ids", "name", "names", "type", "types", "url", "uri", "urls", "endpoint", "file",
        "files", "path", "paths", "dir", "env", "var", "vars", "length", "len", "size", "limit",
        "limits", "count", "counts", "budget", "max", "min", "ttl", "expiry", "expires",
        "expiration", "timeout", "header", "prefix", "suffix", "field", "fields", "hint",
        "policy", "rotation", "version", "format", "mode", "enabled", "required", "usage",
        "used", "spent", "remaining", "window", "estimate", "rate", "cost", "ref", "arn",
        "location", "source", "provider", "providers", "helper", "command", "cmd", "store",
        "manager", "kind", "label", "placeholder", "regex", "pattern", "strength", "reset",
        "at", "age", "lifetime", "duration", "scope", "scopes", "method", "flow", "index",
        "position", "pos", "offset", "list", "map", "set", "exists", "present", "valid",
        "missing",
    }
)  # fmt: skip
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[\s_.\-]+")


def _key_parts(key: str) -> list[str]:
    """A key name's lower-case words: ``X-Api-Key`` and ``xApiKey`` give x, api, key."""
    return [part.lower() for part in _SEPARATORS.split(_CAMEL.sub("_", key)) if part]


def key_strength(key: str) -> KeyStrength:
    """How surely a key name says its value is a credential: ``strong``, ``weak`` or ``""``.

    Only the last name of an attribute chain counts (``settings.DB_PASSWORD``, not
    ``Token.String.Symbol``). Names that describe a secret rather than hold it end
    in a non-secret word (``token_count``, ``secret_name``, ``password_file``,
    ``api_key_env``), or name a collection (``dropped_secrets``), and do not count.
    ``pass`` counts only as the last of several words (``DB_PASS``, never
    ``--- PASS: test_x``), ``auth`` only as the last word (``BASIC_AUTH``, not
    ``auth_mode``); ``token`` and ``auth`` words are weak.
    """
    parts = _key_parts(key.rsplit(".", 1)[-1])
    if not parts or parts[-1] in _NON_SECRET_SUFFIXES:
        return ""
    if parts[-1] == "pass" and len(parts) > 1:
        return "strong"
    strength: KeyStrength = "weak" if parts[-1] == "auth" else ""
    for index, part in enumerate(parts):
        if part in _PLURALS:
            continue
        if part in _STRONG_PARTS or any(stem in part for stem in _STRONG_STEMS):
            return "strong"
        if part == "key" and index > 0 and parts[index - 1] in _KEY_QUALIFIERS:
            return "strong"
        if part in _WEAK_PARTS or (part.endswith("token") and len(part) > len("token")):
            strength = "weak"
    return strength


def is_sensitive_key(key: str) -> bool:
    """Whether a key name says its value is a credential (``DB_PASSWORD``, ``X-Api-Key``)."""
    return key_strength(key) != ""


# --- values -----------------------------------------------------------------------

#: Literal values that stand for a secret in documentation and code, never one itself.
_PLACEHOLDER_VALUES = frozenset(
    {
        "changeme", "change-me", "change_me", "changethis", "password", "passwd", "pass",
        "secret", "token", "apikey", "api_key", "api-key", "key", "none", "null", "nil",
        "undefined", "true", "false", "yes", "no", "on", "off", "required", "optional",
        "string", "str", "bytes", "int", "bool", "any", "secretstr", "text", "example",
        "dummy", "test", "testing", "placeholder", "redacted", "hidden", "masked", "empty",
        "default", "todo", "tbd", "foo", "bar", "baz", "value", "bearer", "basic", "oauth",
        "oauth2", "jwt", "digest", "header", "env", "secrets", "tokens", "mysecret",
        "mypassword", "mytoken", "supersecret", "s3cr3t", "letmein", "admin", "root",
    }
)  # fmt: skip
#: Substrings that mark a value (or a token body) as a stand-in.
_PLACEHOLDER_MARKS = (
    "example", "placeholder", "redacted", "changeme", "change_me", "change-me", "your_",
    "your-", "yourtoken", "yourkey", "yoursecret", "yourpassword", "xxxxxx", "****", "...",
    "\u2026", "[redacted",
)  # fmt: skip
#: Template and reference syntax: ``$VAR``, ``${VAR}``, ``$(cmd)``, ``%VAR%``, ``%(x)s``,
#: ``{{ x }}``, ``{...}``, ``[...]``, ``<your-token>``.
_STAND_IN = re.compile(
    r"^(?:\$\{?[A-Za-z_]|\$\(|[{\[]|%[A-Za-z_]\w*%$)"
    r"|<[^<>\s]*>|\$\{[^}]*\}|\{\{|%\(\w+\)[sdr]"
)
#: Words that, as a whole ``-``/``_``-separated segment of a token body, make it a stand-in.
_PLACEHOLDER_SEGMENTS = frozenset(
    {"your", "here", "key", "token", "secret", "xxx", "fake", "dummy", "test", "sample"}
)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_VERSION = re.compile(r"[\^~<>=]*v?\d+(?:\.\d+)+(?:[-+][\w.]+)?")
_KEY_FILES = "pem|key|json|txt|env|ya?ml|p12|pfx|crt|der|jks|keystore|gpg|asc|cfg|conf|ini|toml"
_URL_OR_FILE = re.compile(rf"(?:https?://|file:|[A-Za-z]:\\).*|[\w.-]+\.(?:{_KEY_FILES})", re.I)
_SPACE = re.compile(r"\s")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
_TOKEN_ALPHABET = re.compile(r"[A-Za-z0-9._~+/=-]+")
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.@~-]+(?:/[\w.@~-]+)*/?")
#: Path segments longer than this are base64 that happens to start with ``/``.
MAX_PATH_SEGMENT = 32


#: Passwords in documentation URLs (``postgres://user:password@localhost``).
_URL_STAND_INS = frozenset({"password", "passwd", "pass", "pwd", "secret", "changeme", "token"})


def _is_placeholder(value: str) -> bool:
    """A stand-in such as ``<token>``, ``${VAR}``, ``***``, ``changeme``, ``your_api_key``.

    Values made of fewer than ``MIN_DISTINCT`` different characters (``xxxx``,
    ``0000``, ``----``) are stand-ins too, as are values with a stand-in word as a
    whole segment (``test-key``, ``my_secret``) and short values ending in a
    separator (the ``sk-ant-`` of ``'sk-ant-' + rest``).
    """
    lowered = value.lower()
    if lowered in _PLACEHOLDER_VALUES or _STAND_IN.search(value):
        return True
    if len(set(lowered) - set("-_.:/")) < MIN_DISTINCT:
        return True
    if value[-1] in "-_" and len(value) < PREFIX_STUB:  # ``'sk-ant-' + rest``: a prefix only
        return True
    if any(segment in _PLACEHOLDER_SEGMENTS for segment in re.split(r"[-_.]", lowered)):
        return True
    return any(mark in lowered for mark in _PLACEHOLDER_MARKS)


def _is_placeholder_body(body: str) -> bool:
    """A token body that is a stand-in (``sk-ant-xxxxxxxx…``, ``ghp_your_token_here``)."""
    lowered = body.lower()
    if len(set(lowered) - set("-_.")) < MIN_DISTINCT or any(
        m in lowered for m in _PLACEHOLDER_MARKS
    ):
        return True
    return any(segment in _PLACEHOLDER_SEGMENTS for segment in re.split(r"[-_.]", lowered))


def _is_path(value: str) -> bool:
    """``/run/secrets/db``, ``~/.ssh/id_rsa``, ``./key.pem``; not base64 starting with ``/``."""
    return bool(_PATH.fullmatch(value)) and all(
        len(segment) <= MAX_PATH_SEGMENT for segment in value.split("/")
    )


def _is_reference(value: str, key: str, *, quoted: bool, tight: bool) -> bool:
    """Code or config that points at a secret instead of holding it.

    Unquoted, a call or index (``getenv("X")``, ``env["X"]``), a dotted name
    (``settings.SECRET_KEY``), after a spaced separator another assignment
    (``token = max_tokens=4096``; base64 padding aside), or a variable named like
    a secret (``db_password``);
    quoted or not, a version, a file path or a URL without credentials.
    """
    if _VERSION.fullmatch(value) or _URL_OR_FILE.fullmatch(value) or _is_path(value):
        return True
    if quoted:
        return False
    if "(" in value or "[" in value or _DOTTED.fullmatch(value):
        return True
    if not tight and "=" in value.rstrip("="):
        return True
    return bool(_IDENTIFIER.fullmatch(value)) and (
        is_sensitive_key(value) or value.lower() == key.lower()
    )


def _looks_like_token(value: str) -> bool:
    """Tokens are generated in URL-safe alphabets: digits among letters, nothing else.

    Keeps ``Token: "#d8dee9"`` (a colour), regex descriptions and words out.
    """
    return bool(_TOKEN_ALPHABET.fullmatch(value)) and _generated(value, mixed_case=False)


def _looks_random(value: str) -> bool:
    """An unquoted value after ``key: `` must look generated: digits among letters, or mixed."""
    if len(value) < MIN_LOOSE or not _LETTER.search(value):
        return False
    digits = len(_DIGIT.findall(value))
    mixed_case = value.lower() != value != value.upper()
    return digits >= 2 or (digits == 1 and mixed_case)


def _is_secret_value(
    key: str, value: str, strength: KeyStrength, *, quoted: bool, tight: bool
) -> bool:
    """Whether the value assigned to a sensitive key is a credential literal.

    Quoted literals and tight ``KEY=value`` pairs need ``MIN_LITERAL`` characters and
    no whitespace; a loose unquoted value must also look random (see module doc);
    under a weak key name (``token``) any value must look like a generated token.
    """
    if not value or _SPACE.search(value) or _is_placeholder(value):
        return False
    if _is_reference(value, key, quoted=quoted, tight=tight):
        return False
    if strength == "weak" and not _looks_like_token(value):
        return False
    if value.isdigit() or quoted or tight:
        return len(value) >= MIN_LITERAL
    return _looks_random(value)


# --- detectors --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Detector:
    """One kind of secret: a pattern, the group that holds the value, an optional check."""

    kind: str
    pattern: re.Pattern[str]
    group: int | str = 0
    check: Callable[[re.Match[str]], bool] | None = None


_L = r"(?<![A-Za-z0-9_])"  # a token starts at a boundary
_R = r"(?![A-Za-z0-9_])"  # and ends at one


def _body_ok(match: re.Match[str]) -> bool:
    """A token whose body (group 1) is not a stand-in."""
    return not _is_placeholder_body(match.group(1))


def _generated(body: str, *, mixed_case: bool) -> bool:
    """A body that looks machine-made: digits among letters (and both cases, if asked)."""
    if not _DIGIT.search(body) or not _LETTER.search(body):
        return False
    if mixed_case and not body.lower() != body != body.upper():
        return False
    return not _is_placeholder_body(body)


def _openai_ok(match: re.Match[str]) -> bool:
    """``sk-`` is a short prefix (CSS classes use it): the body must be long and base62-random."""
    body = match.group(1)
    return len(body) >= OPENAI_MIN_BODY and _generated(body, mixed_case=True)


def _bearer_ok(match: re.Match[str]) -> bool:
    """A bearer token holds digits and letters; ``Bearer tokens expire`` is prose."""
    return _generated(match.group("value"), mixed_case=False)


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
        return _generated(value, mixed_case=False)
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    user, colon, password = decoded.decode("latin-1").partition(":")
    return bool(colon and password and user.isprintable() and not _is_placeholder(password))


def _url_password_ok(match: re.Match[str]) -> bool:
    """Any password in a URL counts unless it is a stand-in (``:password@``, ``:${PW}@``)."""
    value = match.group("value")
    lowered = value.lower()
    if lowered in _URL_STAND_INS or _STAND_IN.search(value):
        return False
    return not any(mark in lowered for mark in _PLACEHOLDER_MARKS)


def _arn_ok(match: re.Match[str]) -> bool:
    """AWS-managed ARNs (account ``aws``) are public; every other ARN counts (seed 002)."""
    return match.group("account") != "aws"


def _value_ok(match: re.Match[str]) -> bool:
    return not _is_placeholder_body(match.group("value"))


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

_DASH = r"(?![\w-])"  # a token whose alphabet has "-" ends where that alphabet ends
_ALNUM = r"(?![A-Za-z0-9])"
#: Provider tokens as (kind, prefix, body, what may not follow); the body is checked
#: against stand-ins (``ghp_xxxx…``, ``sk-ant-your-key-here``).
_PREFIXED: tuple[tuple[str, str, str, str], ...] = (
    ("anthropic-key", "sk-ant-", r"[A-Za-z0-9_-]{20,}", _DASH),
    ("aws-access-key", "(?:AKIA|ASIA|ABIA|ACCA)", r"[A-Z0-9]{16}", _ALNUM),
    ("github-token", "(?:gh[pousr]_|github_pat_)", r"[A-Za-z0-9_]{30,}", _R),
    ("gitlab-token", "gl(?:pat|dt|rt|ptt|ft|cbt|soat)-", r"[A-Za-z0-9_-]{20,}", _DASH),
    ("slack-token", "(?:xox[abposr]|xapp)-", r"[A-Za-z0-9-]{10,}", _DASH),
    ("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/",
     r"[A-Za-z0-9_/-]{20,}", _DASH),
    ("google-api-key", "AIza", r"[0-9A-Za-z_-]{35}", _DASH),
    ("google-oauth-secret", "GOCSPX-", r"[A-Za-z0-9_-]{24,}", _DASH),
    ("stripe-key", "(?:[sr]k_(?:live|test)_|whsec_)", r"[A-Za-z0-9]{16,}", _R),
    ("npm-token", "npm_", r"[A-Za-z0-9]{36}", _ALNUM),
    ("huggingface-token", "hf_", r"[A-Za-z0-9]{30,}", _R),
    ("pypi-token", "pypi-AgE", r"[A-Za-z0-9_-]{50,}", _DASH),
    ("sendgrid-key", r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", _DASH),
    ("digitalocean-token", "do[opr]_v1_", r"[a-f0-9]{64}", _R),
    ("shopify-token", "shp(?:at|ca|pa|ss)_", r"[a-fA-F0-9]{32}", _R),
    ("telegram-bot-token", r"\d{8,10}:", r"AA[A-Za-z0-9_-]{33}", _DASH),
)  # fmt: skip


def _prefixed(kind: str, prefix: str, body: str, tail: str) -> _Detector:
    """A provider token: ``prefix`` then ``body`` (group 1, checked against stand-ins)."""
    return _Detector(kind, re.compile(f"{_L}{prefix}({body}){tail}"), 0, _body_ok)


#: Every detector, most specific first (the first kind names a merged match).
_DETECTORS: tuple[_Detector, ...] = (
    _Detector("private-key", _PEM),
    _Detector("jwt", _JWT, 0, _jwt_ok),
    *(_prefixed(*spec) for spec in _PREFIXED[:2]),  # Anthropic before OpenAI's "sk-"
    _Detector("aws-secret-key", _AWS_SECRET, "value", _value_ok),
    *(_prefixed(*spec) for spec in _PREFIXED[2:]),
    _Detector("openai-key", _OPENAI, 0, _openai_ok),
    _Detector("azure-key", _AZURE_KEY, "value"),
    _Detector("azure-sas", _AZURE_SAS, "value"),
    _Detector("authorization", _AUTHORIZATION, "value", _authorization_ok),
    _Detector("bearer-token", _BEARER, "value", _bearer_ok),
    _Detector("url-credentials", _URL_PASSWORD, "value", _url_password_ok),
    _Detector("aws-arn", _AWS_ARN, 0, _arn_ok),
)
_ASSIGNMENT_KIND = "sensitive-assignment"

#: Every kind the filter reports, most specific first.
KINDS: tuple[str, ...] = (*(detector.kind for detector in _DETECTORS), _ASSIGNMENT_KIND)
_PRIORITY: Mapping[str, int] = {kind: rank for rank, kind in enumerate(KINDS)}


def _spans(detector: _Detector, text: str) -> Iterator[tuple[int, int]]:
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
        if not _is_secret_value(key, value, strength, quoted=bool(quote), tight=tight):
            continue
        if not quote and not measured[0] <= end <= measured[1]:
            run = _BARE_RUN.match(text, end)
            measured = (end, run.end() if run else end)
        yield start, end if quote else measured[1]


def _raw_matches(text: str) -> Iterator[tuple[int, int, str]]:
    """Every accepted hit as (start, end, kind), overlapping and unordered."""
    for detector in _DETECTORS:
        for start, end in _spans(detector, text):
            if end > start:
                yield start, end, detector.kind
    for start, end in _assignment_spans(text):
        yield start, end, _ASSIGNMENT_KIND


# --- public API ---------------------------------------------------------------------

_FINGERPRINT_KEY = os.urandom(16)


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """One credential-shaped value: its kind and span in the scanned text, never the value.

    ``fingerprint`` is a keyed hash that is stable within one process only, so
    that two matches of the same value can be told apart from two different
    values without making a short password guessable from a log line.
    """

    kind: str
    start: int
    end: int
    fingerprint: str


def _fingerprint(value: str) -> str:
    digest = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), key=_FINGERPRINT_KEY)
    return digest.hexdigest()[:12]


def find_secrets(text: str) -> list[SecretMatch]:
    """Every credential-shaped value in ``text``, in order, overlapping hits merged.

    Overlapping hits of several detectors (``TOKEN=ghp_…`` is both an assignment and
    a GitHub token) become one match covering all of them, named by the most
    specific kind.
    """
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(_raw_matches(text)):
        if merged and start < merged[-1][1]:
            first, last_end, named = merged.pop()
            specific = kind if _PRIORITY[kind] < _PRIORITY[named] else named
            merged.append((first, max(last_end, end), specific))
        else:
            merged.append((start, end, kind))
    return [SecretMatch(kind, s, e, _fingerprint(text[s:e])) for s, e, kind in merged]


def contains_secret(text: str) -> bool:
    """Whether ``text`` holds any credential-shaped value (stops at the first)."""
    return next(_raw_matches(text), None) is not None


def redact(text: str) -> tuple[str, int]:
    """``text`` with each secret replaced by ``[REDACTED:<kind>]``, and how many were replaced."""
    matches = find_secrets(text)
    if not matches:
        return text, 0
    pieces: list[str] = []
    position = 0
    for match in matches:
        pieces += (text[position : match.start], f"[REDACTED:{match.kind}]")
        position = match.end
    pieces.append(text[position:])
    return "".join(pieces), len(matches)


# --- memory items -------------------------------------------------------------------

#: Optional fields that are cleared (set to None) when they hold a secret; any other
#: text field holding one drops the whole item.
CLEARABLE_FIELDS = frozenset({"project"})


@dataclass(frozen=True, slots=True)
class ItemFindings:
    """Where an item holds secrets: matches per field (``quotes[2]`` for the third quote)."""

    by_field: Mapping[str, tuple[SecretMatch, ...]]

    @property
    def total(self) -> int:
        """How many credential-shaped values the item holds in all its fields."""
        return sum(len(matches) for matches in self.by_field.values())

    @property
    def kinds(self) -> Counter[str]:
        """How many values of each kind the item holds."""
        return Counter(m.kind for matches in self.by_field.values() for m in matches)


class FilterResult(NamedTuple):
    """The item to store (None when dropped) and how many secret values were dropped.

    A 2-tuple, so it meets the collector's ``FilterItem`` contract as it is;
    ``scan_item`` gives the per-field, per-kind detail.
    """

    item: MemoryItem | None
    dropped: int


def scan_item(item: MemoryItem) -> ItemFindings:
    """The secrets in every text field of ``item``, including each quote's text and id."""
    found: dict[str, tuple[SecretMatch, ...]] = {}
    for spec in fields(item):
        value = getattr(item, spec.name)
        if isinstance(value, str) and (matches := find_secrets(value)):
            found[spec.name] = tuple(matches)
    for index, quote in enumerate(item.quotes):
        matches = find_secrets(quote.text) + find_secrets(quote.message_id)
        if matches:
            found[f"quotes[{index}]"] = tuple(matches)
    return ItemFindings(found)


def filter_item(item: MemoryItem) -> FilterResult:
    """Apply seed 002 rule 5 to every stored field of ``item``.

    - a secret in a quote drops that quote (the quote is evidence, not the memory);
      if the item had quotes and every one is dropped, the item is dropped too:
      nothing verbatim would be left to trace it by;
    - a secret in ``project`` (optional) clears that field;
    - a secret in any other text field (name, description, body, category,
      source) drops the whole item: redacting the memory itself would store a
      changed claim, and the seed says discard.

    ``dropped`` counts every credential-shaped value found, whichever way it went.
    """
    findings = scan_item(item)
    if not findings.by_field:
        return FilterResult(item, 0)
    dropped = findings.total
    fatal = {name for name in findings.by_field if not name.startswith("quotes[")}
    if fatal - CLEARABLE_FIELDS:
        return FilterResult(None, dropped)
    quotes = tuple(q for i, q in enumerate(item.quotes) if f"quotes[{i}]" not in findings.by_field)
    if item.quotes and not quotes:
        return FilterResult(None, dropped)
    project = None if "project" in fatal else item.project
    return FilterResult(replace(item, quotes=quotes, project=project), dropped)


# --- logs ---------------------------------------------------------------------------

_KEY_REDACTED = "[REDACTED:sensitive-assignment]"


def _redact_value(value: object, depth: int) -> object:
    if isinstance(value, str):
        return redact(value)[0]
    if depth >= MAX_LOG_DEPTH and isinstance(value, (dict, list, tuple, set, frozenset)):
        return "[REDACTED:too-deep]"
    if isinstance(value, dict):
        return _redact_mapping(value, depth + 1)
    if isinstance(value, (set, frozenset)):
        return type(value)(_redact_value(element, depth + 1) for element in value)
    if isinstance(value, (list, tuple)):
        redacted = [_redact_value(element, depth + 1) for element in value]
        return redacted if isinstance(value, list) else tuple(redacted)
    return value


def _redact_mapping(mapping: Mapping[Any, Any], depth: int) -> dict[Any, Any]:
    """Redact keys and values; a scalar under a sensitive key name is replaced whole."""
    clean: dict[Any, Any] = {}
    for key, value in mapping.items():
        if not isinstance(key, str):
            clean[key] = _redact_value(value, depth)
        elif _is_scalar_secret(value) and is_sensitive_key(key):
            clean[redact(key)[0]] = _KEY_REDACTED
        else:
            clean[redact(key)[0]] = _redact_value(value, depth)
    return clean


def _is_scalar_secret(value: object) -> bool:
    """A value that can be a credential by itself: a non-empty string, bytes or number."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (isinstance(value, (str, bytes)) and bool(value))


def redact_log_event(logger: Any, method: str, event_dict: EventDict) -> EventDict:
    """structlog processor: no credential reaches a log line.

    Every string in the event, at any depth of dicts, lists, tuples and sets, is
    passed through ``redact``; a non-empty string, bytes or number under a
    sensitive key name (``password=…``, ``{"api_key": …}``) is replaced whole. Place it after the
    processors that render exceptions and positional arguments into strings and
    before the renderer, so it sees the final text.
    """
    return _redact_mapping(event_dict, 0)
