"""Seed 000 STEP 2b: the function and class names a memory cites. Pure.

``extract_symbol_refs`` finds ``name()`` calls, ``def|fn|func name``
definitions, CamelCase words with at least two humps (not product names), and
inside backticks calls with arguments and ``class|struct|enum|... Name``
declarations. Fenced code, paths and file names, URLs, wikilinks and link
targets are not read.

Bias, on purpose: a reference that is invented or wrongly judged missing
makes a memory look stale, and stale memories get trashed. So extraction is
conservative: a false symbol makes a memory look stale, a missed one costs
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from dreamd.dream.folder.pathrefs import EXTENSIONS_PATTERN
from dreamd.dream.folder.reftext import (
    CODE_SPAN,
    blank_match,
    lines_with_offsets,
    without_urls,
)
from dreamd.markdown import blank_fenced

__all__ = ["MIN_CAMEL_HUMPS", "MIN_SYMBOL_LENGTH", "NOT_SYMBOLS", "extract_symbol_refs"]

#: Shorter names are too often words or loop variables to be evidence.
MIN_SYMBOL_LENGTH = 3
#: CamelCase needs this many humps (an upper-case letter followed by a lower-case one).
MIN_CAMEL_HUMPS = 2
#: Names that look like symbols but name products, services or agent tools.
NOT_SYMBOLS: frozenset[str] = frozenset(
    {
        *("GitHub", "GitLab", "BitBucket", "JavaScript", "TypeScript", "CoffeeScript"),
        *("PowerShell", "PowerPoint", "SharePoint", "OneDrive", "OneNote", "DropBox"),
        *("YouTube", "LinkedIn", "FaceBook", "WhatsApp", "TikTok", "PayPal", "WordPress"),
        *("DevOps", "DevTools", "DevRel", "DevEx", "NumPy", "SciPy", "PyTorch", "PyPI"),
        *("TensorFlow", "PyCharm", "WebStorm", "PhpStorm", "JetBrains", "IntelliJ"),
        *("LangChain", "LlamaIndex", "HuggingFace", "DeepMind", "DeepSeek", "OpenRouter"),
        *("PostHog", "TradingView", "QuickLook", "LiveKit", "CloudFlare", "DigitalOcean"),
        *("StackOverflow", "JupyterLab", "JupyterHub", "VirtualBox", "DuckDuckGo"),
        *("ElasticSearch", "SvelteKit", "MacBook", "AirPods", "AppleScript", "GoogleDrive"),
        *("ClaudeCode", "OpenCode", "OpenClaw", "OpenAI", "ChatGPT", "LaTeX", "PyMuPDF"),
        # Claude Code tools and hook events: configuration words, not repository code.
        *("WebSearch", "WebFetch", "TodoWrite", "NotebookEdit", "MultiEdit", "ExitPlanMode"),
        *("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd"),
        *("PreCompact", "SubagentStop", "AskUserQuestion", "Bash", "Read", "Write", "Edit"),
        *("Grep", "Glob", "Task", "Agent", "Skill"),
    }
)
#: Words followed by ``(`` in code that are syntax, not functions.
_KEYWORDS: frozenset[str] = frozenset(
    {
        *("if", "for", "while", "switch", "catch", "return", "elif", "else", "and", "not"),
        *("with", "match", "case", "sizeof", "typeof", "await", "yield", "lambda", "function"),
        *("def", "class", "new", "super", "self", "this", "assert", "import", "require"),
    }
)
_WIKILINK = re.compile(r"\[\[[^\]\n]*\]\]")
_LINK_TARGET = re.compile(r"\]\([^)\n]*\)")
_FILE_NAME_AHEAD = re.compile(rf"\.(?i:{EXTENSIONS_PATTERN})(?![A-Za-z0-9_])")
_IDENTIFIER_CHARS = re.compile(r"[A-Za-z0-9_]+")
_DEFINITION = re.compile(r"\b(?:def|fn|func)[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
# Starts with a character class so the scan skips lower-case text at C speed; the
# lookbehind then rejects a capital inside a word. Hump count is checked after.
_CAMEL = re.compile(
    r"[A-Z](?<![A-Za-z0-9_][A-Z])[A-Za-z0-9]*?[a-z][A-Za-z0-9]*?[A-Z][a-z][A-Za-z0-9]*"
    r"(?![A-Za-z0-9_])"
)
_HUMP = re.compile(r"[A-Z][a-z]")
_MC_NAME = re.compile(r"^Ma?c[A-Z][a-z]")
_CALL_IN_CODE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\(")
_DECLARATION_IN_CODE = re.compile(
    r"\b(?:class|struct|interface|enum|trait|function|impl|module)[ \t]+([A-Za-z_][A-Za-z0-9_]*)"
)


def _symbol_text(text: str) -> str:
    """The text symbols are read from: fences, URLs, wikilinks, link targets blanked.

    Fenced blocks are dropped because they hold examples and commands far
    more often than the repository's own code.
    """
    text = without_urls(blank_fenced(text))
    if "[[" in text:
        text = _WIKILINK.sub(blank_match, text)
    if "](" in text:
        text = _LINK_TARGET.sub(blank_match, text)
    return text


def _inside_path(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is part of a path or file name (``src/MyWidget.tsx``)."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if before in "/\\" or after in "/\\":
        return True
    return after == "." and _FILE_NAME_AHEAD.match(text, end) is not None


def _is_camel_symbol(word: str) -> bool:
    """CamelCase with at least two humps that is not a product name or a surname."""
    if len(_HUMP.findall(word)) < MIN_CAMEL_HUMPS:
        return False
    return word not in NOT_SYMBOLS and _MC_NAME.match(word) is None


def _is_symbol_name(name: str) -> bool:
    return (
        len(name) >= MIN_SYMBOL_LENGTH
        and name not in _KEYWORDS
        and name not in NOT_SYMBOLS
        and any(ch.isalpha() for ch in name)
    )


def _empty_calls(line: str) -> Iterator[tuple[int, str]]:
    """(start, name) of each ``name()`` in a line.

    Found from each ``()`` backwards (on the reversed line, so the regex runs
    forward over the name only) rather than by a regex trying every word.
    """
    reverse = line[::-1]
    position = line.find("()")
    while position != -1:
        match = _IDENTIFIER_CHARS.match(reverse, len(line) - position)
        if match is not None:
            name = match.group()[::-1]
            if not name[0].isdigit():
                yield len(line) - match.end(), name
        position = line.find("()", position + 2)


def _line_symbols(text: str) -> Iterator[tuple[int, str]]:
    """``name()`` and ``def|fn|func name`` anywhere, and what backticked code names."""
    for offset, line in lines_with_offsets(text):
        found: list[tuple[int, str]] = []
        if "()" in line:
            found += _empty_calls(line)
        if "def " in line or "fn " in line or "func " in line:
            found += ((match.start(1), match[1]) for match in _DEFINITION.finditer(line))
        for start, name in found:
            if _is_symbol_name(name) and not _inside_path(line, start, start + len(name)):
                yield offset + start, name
        if "`" in line:
            yield from _code_span_symbols(line, offset)


def _code_span_symbols(line: str, offset: int) -> Iterator[tuple[int, str]]:
    """Inside backticks: calls with arguments (``spawn(x)``), ``class|struct|enum|... Name``."""
    for span in CODE_SPAN.finditer(line):
        start = offset + span.start(1)
        for pattern in (_CALL_IN_CODE, _DECLARATION_IN_CODE):
            for match in pattern.finditer(span[1]):
                if _is_symbol_name(match[1]):
                    yield start + match.start(1), match[1]


def _camel_symbols(text: str) -> Iterator[tuple[int, str]]:
    for match in _CAMEL.finditer(text):
        word = match.group()
        if _is_camel_symbol(word) and not _inside_path(text, match.start(), match.end()):
            yield match.start(), word


def extract_symbol_refs(text: str) -> tuple[str, ...]:
    """Function and class names a memory cites (seed 000 STEP 2b), in order of appearance.

    Found: ``name()`` (the last part of ``obj.name()``), ``def name``,
    ``fn name``, ``func name``, CamelCase words with at least two humps
    (``EffectStack``, not ``Redis`` or ``HTTPServer``) except product names;
    inside backticks also ``name(args)`` and ``class|struct|enum|... Name``.
    Not read: fenced code blocks, paths and file names, URLs, wikilinks, link
    targets. Conservative: a false symbol makes a memory look stale, a
    missed one costs nothing.
    """
    cleaned = _symbol_text(text)
    found = sorted([*_line_symbols(cleaned), *_camel_symbols(cleaned)])
    return tuple(dict.fromkeys(symbol for _, symbol in found))
