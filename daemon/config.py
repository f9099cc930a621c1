"""Configuration: one optional TOML file, validated into typed settings.

Lookup: ``--config FILE``, else ``$DREAMD_CONFIG``, else the platform config
dir (``$XDG_CONFIG_HOME/dreamd/config.toml`` on Linux). A missing default file
means "all defaults"; a missing file that was named explicitly is an error.
Every key is optional. A bad file raises ``ConfigError`` naming the file and
the dotted key (``collect.budget_sessions``), never a traceback. The schedules
are checked where they are used (``Settings.trigger``: the service, ``status``,
``collect``, ``doctor``), so that a command which schedules nothing does not
import the scheduler.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

import msgspec
import platformdirs

from dreamd.configcheck import place_problems, value_problems
from dreamd.errors import ConfigError
from dreamd.lazymap import LazyMap
from dreamd.stores.registry import STORES, StoreContext, StoreSpec, StoreTable
from dreamd.tools import TOOLS

if TYPE_CHECKING:
    from datetime import tzinfo

    from apscheduler.triggers.cron import CronTrigger

    from dreamd.readers import Reader

__all__ = [
    "CollectConfig",
    "Config",
    "DreamConfig",
    "ExtractorsConfig",
    "McpConfig",
    "ServiceConfig",
    "Settings",
    "SourceConfig",
    "load_settings",
    "parse_config",
    "resolve_readers",
    "under_launchd",
]

APP = "dreamd"
T = TypeVar("T")


class _Table(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A TOML table: unknown keys are errors, so typos do not pass silently."""


class SourceConfig(_Table):
    enabled: bool = True
    root: str | None = None
    roots: list[str] | None = None


class CollectConfig(_Table):
    schedule: str = "30 2 * * *"
    #: Sessions / about how many messages per collect; unset: the extractor's budget decides
    #: (see dreamd.collect.budget: the heuristic runs on time, an LLM on its token cap).
    budget_sessions: int | None = None
    budget_messages: int | None = None
    time_budget_seconds: int | None = None  # unset: 1200 for the heuristic, none for an LLM
    window_messages: int = 30
    live_guard_minutes: int = 30
    extractor: Literal["heuristic", "openai", "anthropic", "command"] = "heuristic"
    stores: list[str] = msgspec.field(default_factory=lambda: ["claude-memory", "sql"])
    max_tokens_per_run: int = 0  # model tokens one run may spend; 0 = no cap
    exclude_projects: list[str] = msgspec.field(default_factory=list)  # globs of project paths


class OpenAIExtractorConfig(_Table):
    """Any OpenAI-compatible chat-completions server (OpenAI, Ollama, llama.cpp, vLLM)."""

    base_url: str = ""  # empty: the SDK's default (api.openai.com)
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"  # empty: the server needs no key (Ollama, llama.cpp)
    timeout_seconds: float = 120.0
    max_retries: int = 2
    max_output_tokens: int = 4096
    temperature: float | None = None  # not sent unless set
    #: Which server this is: decides the output cap's name (see dreamd.collect.llm.servers).
    server: Literal["auto", "openai", "ollama", "llamacpp", "vllm"] = "auto"
    context_tokens: int = 0  # tokens one request may hold; 0: the server kind's default


class AnthropicExtractorConfig(_Table):
    """The Anthropic Messages API (``base_url`` for a proxy or a compatible server)."""

    model: str = ""
    api_key_env: str = "ANTHROPIC_API_KEY"
    base_url: str = ""
    timeout_seconds: float = 120.0
    max_retries: int = 2
    max_output_tokens: int = 4096


class CommandExtractorConfig(_Table):
    """A headless agent CLI: the prompt on stdin, one JSON answer on stdout."""

    argv: list[str] = msgspec.field(default_factory=list)
    #: A CLI dreamd knows instead of ``argv`` (see dreamd.collect.llm.presets).
    preset: Literal["", "claude", "codex", "gemini"] = ""
    model: str = ""  # with a preset: the CLI's --model; empty: the CLI's own default
    timeout_seconds: float = 300.0


class ExtractorsConfig(_Table):
    openai: OpenAIExtractorConfig = msgspec.field(default_factory=OpenAIExtractorConfig)
    anthropic: AnthropicExtractorConfig = msgspec.field(default_factory=AnthropicExtractorConfig)
    command: CommandExtractorConfig = msgspec.field(default_factory=CommandExtractorConfig)


class DreamConfig(_Table):
    schedule: str = "30 3 * * *"
    mode: Literal["apply", "propose"] = "apply"
    roots: list[str] = msgspec.field(default_factory=list)
    index_budget_bytes: int = 17408
    #: A scheduled dream that would trash or archive more than this in one folder only
    #: proposes there (seed 000 asks before moving more than three entries).
    max_unattended_moves: int = 3


def _default_store_tables() -> dict[str, StoreTable]:
    return {name: spec.table() for name, spec in STORES.items()}


class ServiceConfig(_Table):
    watch: bool = True
    collect_on_quiet: bool | None = None  # unset: on for the heuristic, off for an LLM
    log_file: str = ""
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    jitter_seconds: int = 0  # scheduled runs start up to this much later, at random
    #: A job without progress this long is stuck: the watchdog pings stop, systemd restarts
    #: the service. Unset: 900, or the extractor's longest call plus 60 if that is longer.
    stall_seconds: int | None = None


class McpConfig(_Table):
    """``[mcp]``: the ``dreamd mcp`` server. Agents may only read unless ``allow_remember``."""

    allow_remember: bool = False


class Config(_Table):
    machine: str | None = None
    sources: dict[str, SourceConfig] = msgspec.field(default_factory=dict)
    collect: CollectConfig = msgspec.field(default_factory=CollectConfig)
    dream: DreamConfig = msgspec.field(default_factory=DreamConfig)
    #: ``[stores.<name>]`` tables, each read into its store's own table type (see ``STORES``).
    stores: dict[str, StoreTable] = msgspec.field(default_factory=_default_store_tables)
    service: ServiceConfig = msgspec.field(default_factory=ServiceConfig)
    extractors: ExtractorsConfig = msgspec.field(default_factory=ExtractorsConfig)
    mcp: McpConfig = msgspec.field(default_factory=McpConfig)


#: Range checks beside the types: (dotted key, lowest, highest or None).
_RANGES: tuple[tuple[str, int, int | None], ...] = (
    ("collect.budget_sessions", 1, None),
    ("collect.budget_messages", 1, None),
    ("collect.window_messages", 20, 40),
    ("collect.live_guard_minutes", 0, None),
    ("collect.time_budget_seconds", 0, None),
    ("collect.max_tokens_per_run", 0, None),
    ("dream.index_budget_bytes", 1024, None),
    ("dream.max_unattended_moves", 0, None),
    ("service.jitter_seconds", 0, 3600),
    ("service.stall_seconds", 1, None),
)


def parse_config(text: str, path: Path | None = None) -> Config:
    """Validate TOML text into a ``Config``; raises ``ConfigError`` naming the key."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(path, None, f"not valid TOML: {error}") from None
    sources = raw.pop("sources", {})
    stores = raw.pop("stores", {})
    config = _convert(raw, Config, path, prefix="")
    if not isinstance(sources, dict):
        raise ConfigError(path, "sources", "must be a table of tool tables")
    for tool, table in sources.items():
        config.sources[tool] = _convert(table, SourceConfig, path, prefix=f"sources.{tool}")
    config.stores.update(_store_tables(stores, path))
    _check_ranges(config, path)
    _check_sources(config, path)
    _check_stores(config, path)
    _check_extractor(config, path)
    _check_exclusions(config, path)
    for key, problem in value_problems(config):
        raise ConfigError(path, key, problem)
    return config


def _convert(raw: object, kind: type[T], path: Path | None, *, prefix: str) -> T:
    """``msgspec.convert`` with its error turned into a ``ConfigError`` naming the key."""
    try:
        return msgspec.convert(raw, kind)
    except msgspec.ValidationError as error:
        key, problem = _explain(str(error))
        full = ".".join(part for part in (prefix, key) if part) or None
        raise ConfigError(path, full, problem) from None


_AT = re.compile(r"^(?P<problem>.*?)(?: - at `\$(?P<where>[^`]*)`)?$")
_UNKNOWN = re.compile(r"Object contains unknown field `(?P<field>[^`]+)`")


def _explain(message: str) -> tuple[str | None, str]:
    """Split msgspec's ``problem - at `$.a.b``` into (``a.b``, problem)."""
    match = _AT.match(message)
    assert match is not None  # the pattern matches any string
    where = (match.group("where") or "").lstrip(".")
    where = re.sub(r"\[(\d+)\]", r"[\1]", where)
    problem = match.group("problem")
    unknown = _UNKNOWN.match(problem)
    if unknown:
        field = unknown.group("field")
        return (f"{where}.{field}" if where else field), "unknown key"
    problem = problem.replace("Expected", "expected").replace("`", "").replace(" | null", "")
    problem = re.sub(r"^Invalid enum value (.*)$", r"\1 is not an allowed value", problem)
    return (where or None), problem


def _check_ranges(config: Config, path: Path | None) -> None:
    for key, low, high in _RANGES:
        table, name = key.split(".")
        value = getattr(getattr(config, table), name)
        if value is None:  # unset: a default that depends on other keys
            continue
        if value < low or (high is not None and value > high):
            bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise ConfigError(path, key, f"must be {bounds}, got {value}")


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _check_extractor(config: Config, path: Path | None) -> None:
    """The configured LLM extractor has what it needs; limits are positive."""
    chosen = config.collect.extractor
    tables = config.extractors
    for name in ("openai", "anthropic", "command"):
        table = getattr(tables, name)
        if table.timeout_seconds <= 0:
            raise ConfigError(path, f"extractors.{name}.timeout_seconds", "must be above 0")
        for key in ("max_retries", "max_output_tokens"):
            low = 0 if key == "max_retries" else 1
            if hasattr(table, key) and getattr(table, key) < low:
                raise ConfigError(path, f"extractors.{name}.{key}", f"must be at least {low}")
        variable = getattr(table, "api_key_env", "")
        if variable and not _ENV_NAME.match(variable):
            raise ConfigError(
                path,
                f"extractors.{name}.api_key_env",
                "must name an environment variable; the key itself goes in that variable",
            )
    if chosen in ("openai", "anthropic") and not getattr(tables, chosen).model.strip():
        raise ConfigError(
            path, f"extractors.{chosen}.model", f"collect.extractor = {chosen!r} needs a model"
        )
    command = tables.command
    if command.preset and command.argv:
        raise ConfigError(path, "extractors.command", "set preset or argv, not both")
    has_argv = bool(command.argv and command.argv[0].strip())
    if chosen == "command" and not (has_argv or command.preset):
        raise ConfigError(
            path,
            "extractors.command.argv",
            "collect.extractor = 'command' needs a command line (argv) or a preset",
        )


def _check_exclusions(config: Config, path: Path | None) -> None:
    """Every ``collect.exclude_projects`` pattern says something."""
    for index, pattern in enumerate(config.collect.exclude_projects):
        if not pattern.strip():
            raise ConfigError(path, f"collect.exclude_projects[{index}]", "must not be empty")


def _store_tables(raw: object, path: Path | None) -> dict[str, StoreTable]:
    """Each ``[stores.<name>]`` table read into its store's table type."""
    if not isinstance(raw, dict):
        raise ConfigError(path, "stores", "must be a table of store tables")
    tables: dict[str, StoreTable] = {}
    for name, table in raw.items():
        spec = STORES.get(name)
        if spec is None:
            raise ConfigError(path, f"stores.{name}", "unknown key")
        tables[name] = _convert(table, spec.table, path, prefix=f"stores.{name}")
    return tables


def _check_stores(config: Config, path: Path | None) -> None:
    """Known store names in ``collect.stores``; each store's own checks of its table."""
    for index, name in enumerate(config.collect.stores):
        if name not in STORES:
            known = ", ".join(STORES)
            raise ConfigError(path, f"collect.stores[{index}]", f"unknown store {name!r} ({known})")
    for name, spec in STORES.items():
        problem = spec.check(config.stores[name], name in config.collect.stores)
        if problem is not None:
            key, why = problem
            raise ConfigError(path, f"stores.{name}.{key}", why)


def _check_sources(config: Config, path: Path | None) -> None:
    for tool, source in config.sources.items():
        if tool not in TOOLS:
            known = ", ".join(TOOLS)
            raise ConfigError(path, f"sources.{tool}", f"unknown tool (known: {known})")
        if source.root is not None and source.roots is not None:
            raise ConfigError(path, f"sources.{tool}", "set root or roots, not both")


@dataclass(frozen=True)
class Settings:
    """The configuration resolved against one environment: paths are absolute.

    The sources' roots and readers are resolved on first use: a command that
    reads only the state (``dreamd status``) imports no reader.
    """

    config: Config
    config_path: Path | None
    data_dir: Path
    machine: str
    home: Path | None = None  # the home ``~`` in settings means (None: the process's)
    env: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    platform: str = sys.platform

    @cached_property
    def source_roots(self) -> Mapping[str, tuple[Path, ...]]:
        """Each enabled tool's roots (``resolve_source_roots``)."""
        return resolve_source_roots(self.config, self.env, self.home or Path.home())

    @cached_property
    def readers(self) -> Mapping[str, Reader]:
        """The readers as this process must use them (Aider's fenced under launchd on macOS)."""
        return resolve_readers(self.config, self.env, self.home or Path.home(), self.platform)

    def trigger(
        self, job: Literal["collect", "dream"], zone: tzinfo, jitter: int | None = None
    ) -> CronTrigger:
        """The ``job``'s schedule as a cron trigger in ``zone``; a schedule that is no cron
        expression raises ``ConfigError`` naming the file and the key."""
        from dreamd.schedule import parse_schedule  # the scheduler, only where it is used

        key = f"{job}.schedule"
        try:
            return parse_schedule(getattr(self.config, job).schedule, zone, jitter)
        except ValueError as error:
            raise ConfigError(self.config_path, key, f"not a cron schedule: {error}") from None

    def check_schedules(self) -> None:
        """Raise ``ConfigError`` for the first schedule that is no cron expression."""
        from zoneinfo import ZoneInfo

        self.trigger("collect", ZoneInfo("UTC"))
        self.trigger("dream", ZoneInfo("UTC"))

    @property
    def state_db(self) -> Path:
        return self.data_dir / "state.db"

    def listed_stores(self) -> list[tuple[StoreSpec, StoreTable]]:
        """The stores ``collect.stores`` lists, in its order, each with its table."""
        return [(STORES[name], self.config.stores[name]) for name in self.config.collect.stores]

    def store_context(self, env: Mapping[str, str], home: Path) -> StoreContext:
        """Where this configuration's stores live, for one environment."""
        return StoreContext(data_dir=self.data_dir, machine=self.machine, home=home, env=env)


def default_config_path(env: Mapping[str, str]) -> Path:
    """``$DREAMD_CONFIG`` or the platform's config location for dreamd."""
    if env.get("DREAMD_CONFIG"):
        return Path(env["DREAMD_CONFIG"]).expanduser()
    return Path(platformdirs.user_config_dir(APP, appauthor=False)) / "config.toml"


def default_data_dir() -> Path:
    """The platform's data location for dreamd (``$XDG_DATA_HOME/dreamd`` on Linux)."""
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def _host_name() -> str:
    """This machine's name (``socket.gethostname``: ``uname`` is the same call here, without
    importing the socket layer into every command)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


def load_settings(
    explicit: Path | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Settings:
    """Read and resolve the configuration; raises ``ConfigError``."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    path = explicit or default_config_path(env)
    named = explicit is not None or bool(env.get("DREAMD_CONFIG"))
    config = _read_config(path, must_exist=named)
    for key, problem in place_problems(config, home, env):
        raise ConfigError(path, key, problem)
    return Settings(
        config=config,
        config_path=path if path.is_file() else None,
        data_dir=default_data_dir(),
        machine=config.machine or _host_name().split(".")[0] or "localhost",
        home=home,
        env=env,
    )


#: The launchd label of the agent ``dreamd install-service`` writes (``dreamd.service``).
_LAUNCHD_LABEL = "dev.dreamd.agent"


def under_launchd(env: Mapping[str, str]) -> bool:
    """Whether this process is the launchd agent: its plist sets ``DREAMD_SERVICE=launchd``
    (launchd itself sets ``XPC_SERVICE_NAME`` to the label, for agents written before)."""
    return env.get("DREAMD_SERVICE") == "launchd" or env.get("XPC_SERVICE_NAME") == _LAUNCHD_LABEL


def resolve_readers(
    config: Config, env: Mapping[str, str], home: Path, platform: str
) -> Mapping[str, Reader]:
    """``READERS``, with Aider's kept out of the folders macOS guards under launchd; each
    reader is imported when first asked for."""
    from dreamd.readers import READERS

    def reader(tool: str) -> Reader:
        if tool != "aider":
            return READERS[tool]
        from dreamd.readers.aider import configured_reader

        source = config.sources.get("aider", SourceConfig())
        configured = [source.root] if source.root is not None else source.roots
        roots = None if configured is None else [_expand(entry, home) for entry in configured]
        return configured_reader(platform, under_launchd(env), roots, home)

    return LazyMap(READERS, reader)


def _read_config(path: Path, *, must_exist: bool) -> Config:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if must_exist:
            raise ConfigError(path, None, "file not found") from None
        return Config()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(path, None, f"cannot read: {error}") from None
    return parse_config(text, path)


def resolve_source_roots(
    config: Config, env: Mapping[str, str], home: Path
) -> Mapping[str, tuple[Path, ...]]:
    """Each enabled tool's roots: configured ones, else the reader's defaults (the reader is
    imported only when its roots are asked for)."""

    def roots(tool: str) -> tuple[Path, ...]:
        source = config.sources.get(tool, SourceConfig())
        configured = [source.root] if source.root is not None else source.roots
        if configured is not None:
            return tuple(_expand(entry, home) for entry in configured)
        from dreamd.readers import READERS

        return READERS[tool].default_roots(env, home)

    enabled = [tool for tool in TOOLS if config.sources.get(tool, SourceConfig()).enabled]
    return LazyMap(enabled, roots)


def _expand(entry: str, home: Path) -> Path:
    if entry == "~" or entry.startswith("~/"):
        return home / entry[2:]
    return Path(entry)
