"""Credentials given on a command line or stated in a sentence: our own patterns.

Coding transcripts are full of commands. The password of ``sshpass -p``,
``mysql -pXXX``, ``docker login -p``, ``redis-cli -a``, ``curl -u
user:password``, ``--password VALUE``, ``echo VALUE | sudo -S`` and their
kin is a credential even though no key name says so in ``KEY=value`` form
(``--password=VALUE`` and ``PGPASSWORD=VALUE`` are the assignment detector's).
A sentence that states one (``the API key 0123…``, ``password is hunter2x``)
is one too.

Decisions (precision first: an over-eager rule drops good memories):

- a flag counts only after the program that gives it that meaning: ``-p`` is a
  password for ``sshpass`` and ``docker login`` but a port for ``ssh``; for
  ``mysql`` only the attached ``-pVALUE`` form is a password (``-p db``
  prompts, ``db`` is the database);
- the value is judged as an assignment's (``dreamd.secrets.values``): stand-ins
  (``$PASS``, ``<password>``, ``***``), references, paths, versions and short
  values are not secrets; an unquoted plain word (``--password explicitly``)
  is prose, not a password;
- a long flag named like a credential (``--db-password``, ``--api-key``,
  ``--token``) takes a space-separated value; flags that say where the
  secret comes from (``--password-stdin``, ``--token-file``) do not;
- a stated key or token needs a generated-looking value of 16+ characters; a
  stated password 6+ characters mixing letters and digits; either follows its
  word after a space or a ``:``/``=`` (``:password@host`` is a URL's stand-in).

Invariants: every pattern is anchored on a program name or a key word at a
boundary, and walks at most ``MAX_ARGS`` arguments, so the work stays linear.
"""

# The rule tables read one rule a line (the patterns are long).
# ruff: noqa: E501

from __future__ import annotations

import re

from dreamd.secrets.detector import Detector
from dreamd.secrets.values import is_secret_value, key_strength, looks_generated

__all__ = ["COMMAND_DETECTORS", "MAX_ARGS", "MIN_STATED_TOKEN"]

#: How many arguments a pattern walks between a program and its password flag.
MAX_ARGS = 10
#: Minimum length of a stated key or token (``the API key <value>``).
MIN_STATED_TOKEN = 16

_CMD = r"(?<![\w.-])"  # a program name starts at a boundary
_ARGS = rf"(?:[ \t]+[^\s|;&`]+){{0,{MAX_ARGS}}}?"
_OPTS = r"(?:[ \t]+-[^\s|;&`]+){0,6}?"
_Q = r"(?P<quote>['\"]?)"
#: A value: quoted (may hold spaces) or a bare run that ends at a shell separator.
_V = r"(?P<value>(?<=['\"])[^'\"\n]{1,256}(?=['\"])|[^\s'\"`;|&()<>]{1,256})"
_BARE_V = r"(?P<value>[^\s'\"`@;|&()<>]{1,256})"
_WORD = re.compile(r"[A-Za-z][a-z]*")
#: Last words of a long flag that say where a secret comes from, not what it is.
_SOURCE_FLAGS = ("stdin", "fd", "prompt", "interactive", "helper", "cmd", "command", "file")


def _flag_value_ok(match: re.Match[str], key: str = "password") -> bool:
    """A literal password: judged as an assignment's value; bare plain words are prose."""
    value = match.group("value")
    quoted = bool(match.groupdict().get("quote"))
    if value.startswith("-") or (not quoted and _WORD.fullmatch(value)):
        return False
    strength = key_strength(key) or "strong"
    return is_secret_value(key, value, strength, quoted=quoted, tight=True)


def _long_flag_ok(match: re.Match[str]) -> bool:
    """``--db-password VALUE``, ``--api-key VALUE``: the flag names a credential literal."""
    key = match.group("key").lower()
    if not key_strength(key) or key.rsplit("-", 1)[-1] in _SOURCE_FLAGS:
        return False
    return _flag_value_ok(match, key)


_PASSWORD_WORDS = frozenset({"password", "passphrase", "passwd"})


def _stated_ok(match: re.Match[str]) -> bool:
    """``the API key <value>``: a generated token; ``password is <value>``: letters and digits."""
    value = match.group("value")
    quoted = bool(match.group("quote"))
    if value.startswith("-") or not is_secret_value(
        "secret", value, "strong", quoted=quoted, tight=True
    ):
        return False
    if match.group("key").lower() in _PASSWORD_WORDS:
        return quoted or looks_generated(value, mixed_case=False)
    return len(value) >= MIN_STATED_TOKEN and looks_generated(value, mixed_case=False)


_STATED_KEYS = (
    r"api[ _-]?(?:key|token|secret)|access[ _-]?(?:key|token)|auth(?:entication)?[ _-]?token"
    r"|secret[ _-]?(?:key|token)|client[ _-]?secret|private[ _-]?token|deploy[ _-]?token"
    r"|password|passphrase|passwd|token|secret"
)
_STATED = re.compile(
    rf"(?i)(?<![\w-])(?P<key>{_STATED_KEYS})(?![\w-])"
    r"(?:[ \t]+(?:is|was|of|for[ \t]+[\w.-]+[ \t]+is))?(?:[ \t]*[:=][ \t]*|[ \t]+)"
    r"(?P<quote>['\"`]?)(?P<value>(?<=['\"`])[^'\"`\s]{1,256}(?=['\"`])|[A-Za-z0-9+/_.~!@#$%^*-]{1,256})"
)


def _command(pattern: str, *hints: str) -> Detector:
    """A program's password flag; ``hints``: literals every hit holds (the program's name)."""
    return Detector("command-password", re.compile(pattern), "value", _flag_value_ok, hints)


_MYSQL = r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mysqlpump|mariadb(?:-dump|-admin|-import|-check)?)"
_REGISTRY = r"(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]+registry)[ \t]+login"
_MONGO = r"(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop)"
_PIPE_TARGET = rf"(?:sudo(?:[ \t]+-[A-Za-z]+)*?[ \t]+-S|passwd\b|{_REGISTRY})"

#: Every command-line detector, in the order they are tried.
COMMAND_DETECTORS: tuple[Detector, ...] = (
    _command(rf"{_CMD}sshpass{_OPTS}[ \t]+-p[ \t]*{_Q}{_V}", "sshpass"),
    _command(rf"{_CMD}{_MYSQL}{_ARGS}[ \t]+-p{_Q}{_V}", "mysql", "mariadb"),
    _command(rf"{_CMD}{_REGISTRY}{_ARGS}[ \t]+-p[ \t]*{_Q}{_V}", "login"),
    _command(rf"{_CMD}(?:redis-cli|valkey-cli|keydb-cli){_ARGS}[ \t]+(?:-a[ \t]*|--pass[ \t]+){_Q}{_V}", "-cli"),
    _command(rf"{_CMD}{_MONGO}{_ARGS}[ \t]+-p[ \t]+{_Q}{_V}", "mongo"),
    _command(rf"{_CMD}(?:sqlcmd|bcp|osql|isql){_ARGS}[ \t]+-P[ \t]*{_Q}{_V}", "-P"),
    _command(rf"{_CMD}ldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn){_ARGS}[ \t]+-w[ \t]*{_Q}{_V}", "ldap"),
    _command(rf"{_CMD}(?:az[ \t]+login|twine[ \t]+upload){_ARGS}[ \t]+-p[ \t]+{_Q}{_V}", "login", "upload"),
    _command(rf"{_CMD}(?:zip|unzip|zipcloak){_ARGS}[ \t]+-P[ \t]+{_Q}{_V}", "-P"),
    _command(rf"{_CMD}7z[az]?{_ARGS}[ \t]+-p{_Q}{_V}", "7z"),
    _command(rf"{_CMD}ssh-keygen{_ARGS}[ \t]+-[NP][ \t]*{_Q}{_V}", "ssh-keygen"),
    _command(rf"{_CMD}-(?:store|key|srcstore|deststore|srckey|destkey|new)pass[ \t]+{_Q}{_V}", "pass"),
    _command(rf"{_CMD}-pass(?:in|out)?[ \t]+['\"]?pass:{_BARE_V}", "pass:"),
    _command(
        rf"{_CMD}(?:curl|wget|http|https|xh){_ARGS}[ \t]+(?:-u|--user|-U|--proxy-user|-a|--auth)"
        rf"(?:[ \t]+|=)?['\"]?[^\s:'\"`]*:{_BARE_V}",
        "curl", "wget", "http", "xh",
    ),
    _command(
        rf"{_CMD}(?:smbclient|rpcclient|smbcacls|smbget|smbmap){_ARGS}[ \t]+(?:-U|--user)"
        rf"(?:[ \t]+|=)?['\"]?[^\s%'\"`]+%{_BARE_V}",
        "%",
    ),
    _command(
        rf"{_CMD}htpasswd(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*"
        rf"[ \t]+[^\s|;&`-][^\s|;&`]*[ \t]+[^\s|;&`]+[ \t]+{_Q}{_V}",
        "htpasswd",
    ),
    _command(rf"{_CMD}echo(?:[ \t]+-[neE]+)?[ \t]+{_Q}{_V}['\"]?[ \t]*\|[ \t]*{_PIPE_TARGET}", "echo"),
    _command(
        rf"{_CMD}echo(?:[ \t]+-[neE]+)?[ \t]+['\"]?[\w.-]+:{_BARE_V}['\"]?[ \t]*\|[ \t]*"
        r"(?:sudo[ \t]+)?chpasswd",
        "chpasswd",
    ),
    _command(rf"{_CMD}net[ \t]+user[ \t]+[^\s/]+[ \t]+{_Q}{_V}['\"]?(?=[ \t]+/(?:add|domain|y))", "user"),
    _command(rf"{_CMD}rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+[^\s|;&`]+[ \t]+{_Q}{_V}", "rabbitmqctl"),
    _command(rf"{_CMD}gh[ \t]+secret[ \t]+set{_ARGS}[ \t]+(?:-b|--body)(?:[ \t]+|=){_Q}{_V}", "secret"),
    Detector(
        "command-password",
        re.compile(rf"(?<![\w-])--(?P<key>[A-Za-z][\w-]{{0,40}})[ \t]+{_Q}{_V}"),
        "value",
        _long_flag_ok,
        ("--",),
    ),
    Detector("stated-secret", _STATED, "value", _stated_ok, ("key", "token", "secret", "pass"), folded=True),
)  # fmt: skip
