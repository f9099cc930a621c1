"""Test isolation: every test runs with its own HOME, XDG dirs and no tool env vars."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Real transcripts and memory folders shared beside the project (absent in some checkouts).
_DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
SHARED_FIXTURES = Path(os.environ.get("DREAMD_SHARED_FIXTURES", _DEFAULT_SHARED))

_TOOL_ENV = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "PI_CODING_AGENT_DIR",
    "PI_SESSION_ID",
    "PI_CODING_AGENT_SESSION_DIR",
    "PI_CONFIG_DIR",
    "PI_PROFILE",
    "OMP_PROFILE",
    "OMP_CODING_AGENT_DIR",
    "GEMINI_CLI_HOME",
    "MIMOCODE_DB",
    "OPENCODE_DATA_DIR",
    "AIDER_CHAT_HISTORY_FILE",
    "CURSOR_CONFIG_DIR",
    "DREAMD_CONFIG",
    "DREAMD_INDEX_BUDGET_BYTES",
    "NOTIFY_SOCKET",
    "JOURNAL_STREAM",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME at a fresh directory and clear every variable a tool reads."""
    home = tmp_path / "home"
    home.mkdir()
    for name in _TOOL_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    yield home


@pytest.fixture
def shared_transcripts() -> Path:
    """The shared real-transcript fixtures folder, or skip the test."""
    folder = SHARED_FIXTURES / "transcripts"
    if not folder.is_dir():
        pytest.skip(f"shared transcript fixtures not found at {folder}")
    return folder
