"""References in the heuristic extractor (seed 002 phase 3 topics scan; issue 11 item 1).

Where something lives that is hard to find again: a named resource and where
it is ("the dashboard is at https://..."), a place outside the repository
("the logs are in ~/.app/logs") and a command that does a job ("to reset the
database, run `make db-reset`"), in English, German, Spanish, Chinese and
Japanese. Each rule returns a ``Hit`` whose ``key`` is the target (link,
path or command), so the same target named twice is one item.

Invariants:

- a bare link or path with no name, no place and no purpose is not a
  reference; temporary places and the session's own project are not either;
- an order about the target ("copy X to ~/backup", "run `make` now") is the
  task at hand;
- pure functions of the sentence (and the session's project path).
"""

# The rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import re

from dreamd.collect.norms import IMPERATIVES
from dreamd.collect.rules import Hit, latin_words, wordset
from dreamd.collect.scope import points_at_moment
from dreamd.collect.sentences import Sentence

__all__ = ["rule_command", "rule_outside_path", "rule_reference"]

_LABELS_EN = (
    r"dashboard|docs|documentation|doc|runbook|playbook|wiki|spec|specification|design doc|tracker"
    r"|board|grafana|kibana|sentry|confluence|notion|status page|api reference|handbook|guide"
    r"|style guide|adr|doku|dokumentation|spezifikation|handbuch|anleitung|documentación"
    r"|documentacion|panel|tablero|guía|guia|manual|especificación|especificacion"
)
_TARGET = (
    r"(https?://[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+|(?:~?/|\./|[\w.-]+/)[\w./-]+|[\w./-]+\.md)"
)
_REFERENCE = (
    re.compile(
        rf"^(?:[\w-]+\s+){{0,3}}?(?:{_LABELS_EN})s?\b[^.?!]{{0,40}}?\s(?:is|are|lives?|sits?"
        rf"|can be found|are kept|is kept|is hosted|ist|liegt|liegen|sind|findest du|findet man"
        rf"|gibt es|steht|está|esta|están|estan|vive|se encuentra)\s+(?:at|in|on|under|here|unter"
        rf"|bei|auf|hier|en)?\s*:?\s*{_TARGET}",
        re.I,
    ),
    re.compile(rf"^(?:[\w-]+\s+){{0,3}}?(?:{_LABELS_EN})s?\s*:\s*{_TARGET}", re.I),
    re.compile(rf"^see\s+{_TARGET}\s+for\s+\S.*$|^for\s+[^,]{{3,60}},?\s+see\s+{_TARGET}", re.I),
    re.compile(
        rf"(?:ダッシュボード|ドキュメント|資料|仕様書|手順書|ランブック|ウィキ|設計書|仪表盘|仪表板|文档"
        rf"|看板|手册|说明文档|监控面板|wiki)(?:は|：|:|在|是|地址是|位于)\s*{_TARGET}",
        re.I,
    ),
)


def rule_reference(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a reference the user points to.

    A named kind of resource and where it is: "the dashboard is at https://...",
    "docs: docs/architecture.md", "see https://... for the API", German "die
    Doku liegt unter ...", Japanese ダッシュボードは https://..., Chinese 文档在
    https://.... A bare link with no such name is not a reference.
    """
    for pattern in _REFERENCE:
        found = pattern.search(s.core)
        if found:
            group = next(index for index in range(pattern.groups, 0, -1) if found.group(index))
            target = found.group(group).rstrip(".,;:!?)'").rstrip("/")
            return Hit("reference", "Reference", "reference", found.start(group), key=target)
    return None


_OUTSIDE_PATH = re.compile(
    r"(?:(?<=\s)|^)(?P<path>~/[\w.@+-][\w.@+/-]*|/(?:Users|home)/[\w.@+-]+/[\w.@+/-]+"
    r"|/etc/[\w.@+/-]+|/opt/[\w.@+/-]+|/usr/local/[\w.@+/-]+|[A-Za-z]:\\Users\\[\w.@+\\-]+)"
)
_TEMPORARY = re.compile(
    r"^(?:/tmp/|/var/folders/|/private/var/)|TemporaryItems|[/\\]Temp[/\\]|/\.cache/|Screenshot"
    r"|[/\\](?:Downloads|Desktop|Trash|\.Trash)(?:[/\\]|$)",
    re.I,
)
#: Where something is ("in", "at", "under"), not where to put it ("to", "into"), per language.
_LOCATIVE = re.compile(
    r"(?:\b(?:in|at|under|inside|within|from|see|unter|bei|en|desde|ver)|在|位于|见)\s*$", re.I
)
#: Orders about a path (read it, fix it, copy something there) are the task at hand.
_ORDER_VERBS = IMPERATIVES | wordset(
    """look inspect examine analyze analyse investigate cat mkdir touch schau analysiere
    untersuche mira analiza revisa investiga"""
)


def rule_outside_path(s: Sentence, project: str | None) -> Hit | None:
    """A place outside the repository the user points to: "the logs are in ~/.app/logs".

    Issue 11 item 1: paths under the home folder or the system (``~/...``,
    ``/Users/<name>/...``, ``/home/<name>/...``, ``/etc/...``, ``C:\\Users\\...``)
    that the code cannot tell, said with a locative ("in", "at", "under",
    German "unter", Spanish "en", Chinese 在). Temporary and transient places
    (temp folders, screenshots, Downloads, Desktop), paths inside the
    session's project and orders about the path ("copy X to ~/backup",
    "look at the log in ~/x.log") are not references.
    """
    found = _OUTSIDE_PATH.search(s.text)
    leads = {
        (latin_words(text) or [""])[0] for text in (s.core, s.masked)
    }  # "mira" is a filler too
    orders = leads & _ORDER_VERBS - {"see", "siehe", "ver"}
    if found is None or orders:
        return None
    path = found.group("path").rstrip(".,;:!?)'\"")
    inside = project is not None and path.startswith(project.rstrip("/") + "/")
    if inside or _TEMPORARY.search(path) or not _LOCATIVE.search(s.text[: found.start()]):
        return None
    return Hit("outside_path", "Reference", "reference", found.start(), key=path)


_CMD = r"`(?P<cmd>[^`\n]{2,120})`"
_COMMAND = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        rf"^(?:to|for)\s+(?P<job>[^,`]{{3,60}}),\s*(?:just\s+)?(?:run|use|call|type|execute)\s+{_CMD}",
        rf"^(?:the\s+)?(?:command|script|way)\s+(?:to|for)\s+(?P<job>[^`]{{3,60}}?)\s+is\s+{_CMD}",
        rf"^{_CMD}\s+(?:starts|runs|builds|deploys|tests|rebuilds|regenerates|resets|seeds"
        r"|releases|publishes)\b(?P<job>.*)",
        rf"^um\s+(?P<job>[^,`]{{3,60}})\s+zu\s+\w+,\s*(?:führe|nutze|benutze|verwende)\s+{_CMD}",
        rf"^der\s+befehl\s+für\s+(?P<job>[^`]{{3,60}}?)\s+ist\s+{_CMD}",
        rf"^para\s+(?P<job>[^,`]{{3,60}}),\s*(?:ejecuta|ejecute|usa|use|corre|corra)\s+{_CMD}",
        rf"^el\s+comando\s+para\s+(?P<job>[^`]{{3,60}}?)\s+es\s+{_CMD}",
        rf"^(?:要|想)?(?P<job>[^`，,]{{2,30}}?)(?:的话)?[，,]\s*(?:运行|执行|用){_CMD}",
        rf"^(?P<job>[^`、]{{2,30}}?)(?:するには|には)[、,]?\s*{_CMD}\s*を(?:実行|使用)",
    )
)


def rule_command(s: Sentence) -> Hit | None:
    """A command that does a job, with the job named: a reference (issue 11 item 1).

    "To reset the local database, run `make db-reset`", "the command for
    releases is `npm run ship`", "`make seed` seeds the fixtures", German "um
    ... zu ..., führe `...` aus", Spanish "para ..., ejecuta `...`", Chinese
    要…，运行`…`, Japanese …するには`…`を実行. The command's text is read
    from the sentence (quotes are masked for the other rules); a job that
    points at the moment ("to fix this test, run ...") is the task at hand.
    """
    text = s.text[s.core_at :].rstrip(" .!。")
    found = next((found for p in _COMMAND if (found := p.search(text))), None)
    if found is None:
        return None
    if points_at_moment(found.group("job")):
        return None
    return Hit("command", "Reference", "reference", found.start("cmd"), key=found.group("cmd"))
