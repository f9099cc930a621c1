"""Key names and values for the secret filter: which assignments hold a credential literal.

``dreamd.secrets`` flags ``KEY=value``, ``key: value`` and
``"key": "value"`` when the key name is sensitive (password, secret, token,
api key, private key, credential, ...) and the value is a literal, not a
placeholder, reference or type. This module makes both judgements; the
detectors that use them are in ``dreamd.secrets.patterns``.

Decisions, each a precision choice (noise is worse than omission, seed rule 6):

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

Invariants: pure functions of their arguments; a value is never logged or
kept; ``key_strength`` reads only the last name of an attribute chain.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = [
    "MAX_PATH_SEGMENT",
    "MIN_DISTINCT",
    "MIN_LITERAL",
    "MIN_LOOSE",
    "PLACEHOLDER_MARKS",
    "PREFIX_STUB",
    "STAND_IN",
    "KeyStrength",
    "is_placeholder",
    "is_placeholder_body",
    "is_secret_value",
    "is_sensitive_key",
    "key_strength",
    "looks_generated",
]

#: How surely a key name marks its value as a credential ("" for not at all).
KeyStrength = Literal["", "weak", "strong"]

#: Minimum length of a quoted or tight (``KEY=value``) literal under a sensitive key.
MIN_LITERAL = 6
#: Minimum length of an unquoted value after a spaced separator (``key: value``).
MIN_LOOSE = 8
#: A value made of fewer different characters than this is a stand-in (``xxxx``, ``0000``).
MIN_DISTINCT = 4
#: A value shorter than this that ends in ``-`` or ``_`` is a token prefix, not a token.
PREFIX_STUB = 12

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
#: Whole key names that are a credential by a tool's convention, with no credential word in
#: them (``SSHPASS`` for ``sshpass -e``, ``REDISCLI_AUTH`` for ``redis-cli``).
_STRONG_NAMES = frozenset({"sshpass", "rediscli_auth", "mysql_pwd"})
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
    name = key.rsplit(".", 1)[-1]
    if name.lower() in _STRONG_NAMES:
        return "strong"
    parts = _key_parts(name)
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
PLACEHOLDER_MARKS = (
    "example", "placeholder", "redacted", "changeme", "change_me", "change-me", "your_",
    "your-", "yourtoken", "yourkey", "yoursecret", "yourpassword", "xxxxxx", "****", "...",
    "\u2026", "[redacted",
)  # fmt: skip
#: Template and reference syntax: ``$VAR``, ``${VAR}``, ``$(cmd)``, ``%VAR%``, ``%(x)s``,
#: ``{{ x }}``, ``{...}``, ``[...]``, ``<your-token>``.
STAND_IN = re.compile(
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


def is_placeholder(value: str) -> bool:
    """A stand-in such as ``<token>``, ``${VAR}``, ``***``, ``changeme``, ``your_api_key``.

    Values made of fewer than ``MIN_DISTINCT`` different characters (``xxxx``,
    ``0000``, ``----``) are stand-ins too, as are values with a stand-in word as a
    whole segment (``test-key``, ``my_secret``) and short values ending in a
    separator (the ``sk-ant-`` of ``'sk-ant-' + rest``).
    """
    lowered = value.lower()
    if lowered in _PLACEHOLDER_VALUES or STAND_IN.search(value):
        return True
    if len(set(lowered) - set("-_.:/")) < MIN_DISTINCT:
        return True
    if value[-1] in "-_" and len(value) < PREFIX_STUB:  # ``'sk-ant-' + rest``: a prefix only
        return True
    if any(segment in _PLACEHOLDER_SEGMENTS for segment in re.split(r"[-_.]", lowered)):
        return True
    return any(mark in lowered for mark in PLACEHOLDER_MARKS)


def is_placeholder_body(body: str) -> bool:
    """A token body that is a stand-in (``sk-ant-xxxxxxxx…``, ``ghp_your_token_here``)."""
    lowered = body.lower()
    if len(set(lowered) - set("-_.")) < MIN_DISTINCT or any(
        m in lowered for m in PLACEHOLDER_MARKS
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
    return bool(_TOKEN_ALPHABET.fullmatch(value)) and looks_generated(value, mixed_case=False)


def _looks_random(value: str) -> bool:
    """An unquoted value after ``key: `` must look generated: digits among letters, or mixed."""
    if len(value) < MIN_LOOSE or not _LETTER.search(value):
        return False
    digits = len(_DIGIT.findall(value))
    mixed_case = value.lower() != value != value.upper()
    return digits >= 2 or (digits == 1 and mixed_case)


def is_secret_value(
    key: str, value: str, strength: KeyStrength, *, quoted: bool, tight: bool
) -> bool:
    """Whether the value assigned to a sensitive key is a credential literal.

    Quoted literals and tight ``KEY=value`` pairs need ``MIN_LITERAL`` characters and
    no whitespace; a loose unquoted value must also look random (see module doc);
    under a weak key name (``token``) any value must look like a generated token.
    """
    if not value or _SPACE.search(value) or is_placeholder(value):
        return False
    if _is_reference(value, key, quoted=quoted, tight=tight):
        return False
    if strength == "weak" and not _looks_like_token(value):
        return False
    if value.isdigit() or quoted or tight:
        return len(value) >= MIN_LITERAL
    return _looks_random(value)


def looks_generated(body: str, *, mixed_case: bool) -> bool:
    """A body that looks machine-made: digits among letters (and both cases, if asked)."""
    if not _DIGIT.search(body) or not _LETTER.search(body):
        return False
    if mixed_case and not body.lower() != body != body.upper():
        return False
    return not is_placeholder_body(body)
