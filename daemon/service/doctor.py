"""``dreamd doctor``: every part dreamd depends on, checked, one line each with its fix.

What is checked, in order: the configuration (it loads; an error names the
file and the key), the data folder, each source root (it exists and can be
read; a default root that is missing is only absent, a configured one fails),
each store ``collect.stores`` lists (``dreamd.service.doctorstores``: writable,
reachable, its schema version), the service (installed? running? the program
its file points at still there and there to stay?) and the extractor
(heuristic: built in; ``command``: its program on ``PATH``; an API extractor:
its key set and its server answering ``/models``).

Each check is a :class:`Check`; ``fail`` makes the exit code 1, ``warn`` and
``absent`` do not. Nothing is written: doctor only reads, stats and asks.
"""

from __future__ import annotations

import os
import plistlib
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dreamd.collect.llm.presets import preset_argv
from dreamd.config import Config, Settings, load_settings
from dreamd.errors import ConfigError, NotAvailable
from dreamd.lock import holder
from dreamd.service.doctorprobe import Check, Status, models_probe, writable
from dreamd.service.doctorstores import store_checks
from dreamd.service.install import default_platform, is_ours
from dreamd.service.placement import placement, placement_warnings
from dreamd.service.servicefiles import UNIT_NAME, plist_path, unit_path

__all__ = [
    "SCHEMA",
    "Check",
    "Status",
    "doctor_checks",
    "doctor_json",
    "doctor_text",
    "exit_code",
]

#: The version of the ``doctor --json`` document.
SCHEMA = 1
_MARK: dict[Status, str] = {"ok": "ok", "warn": "warn", "fail": "FAIL", "absent": "-"}


def doctor_checks(
    config_path: Path | None, env: Mapping[str, str], home: Path, platform: str = sys.platform
) -> list[Check]:
    """Every check, in order; a configuration that does not load stops the rest."""
    try:
        settings = load_settings(config_path, env, home)
        settings.check_schedules()
    except ConfigError as error:
        where = str(error.path) if error.path else "the configuration"
        fix = f"edit {where}" + (f" at {error.key}" if error.key else "")
        return [Check("config", where, "fail", str(error), fix)]
    checks = [config_check(settings), writable("data", settings.data_dir, "the data folder")]
    checks += source_checks(settings)
    checks += store_checks(settings, env, home)
    checks += service_checks(settings, env, home, platform)
    checks += extractor_checks(settings.config, env)
    return checks


def config_check(settings: Settings) -> Check:
    """The configuration loaded (every key valid), or no file: every default."""
    if settings.config_path is None:
        return Check("config", "defaults", "ok", "no configuration file: every default applies")
    return Check("config", str(settings.config_path), "ok", "loads; every key is valid")


def _configured_tools(config: Config) -> set[str]:
    return {
        tool for tool, source in config.sources.items() if source.root or source.roots is not None
    }


def source_checks(settings: Settings) -> list[Check]:
    """Each enabled tool's roots: present and readable (a missing default is only absent)."""
    configured = _configured_tools(settings.config)
    path = settings.config_path or "the configuration"
    checks = []
    for tool, roots in settings.source_roots.items():
        for root in roots:
            subject = f"{tool} {root}"
            if not root.exists():
                if tool in configured:
                    fix = f"create it, or fix [sources.{tool}] roots in {path}"
                    checks.append(Check("source", subject, "fail", "not found", fix))
                else:
                    detail = "not found: no sessions from this tool here"
                    checks.append(Check("source", subject, "absent", detail))
                continue
            needed = os.R_OK | (os.X_OK if root.is_dir() else 0)
            if not os.access(root, needed):
                fix = f"give your user read access: chmod u+r{'x' if root.is_dir() else ''} {root}"
                checks.append(Check("source", subject, "fail", "cannot be read", fix))
            else:
                checks.append(Check("source", subject, "ok", "readable"))
    return checks


# --- the service --------------------------------------------------------------------------------


def _installed_program(platform: str, path: Path) -> str | None:
    """The program the unit's ``ExecStart`` or the plist's ``ProgramArguments`` names."""
    data = path.read_bytes()
    if platform == "macos":
        arguments = plistlib.loads(data).get("ProgramArguments") or [None]
        return str(arguments[0]) if arguments[0] else None
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith("ExecStart="):
            word = line.removeprefix("ExecStart=").strip()
            return word[1:].split('"', 1)[0] if word.startswith('"') else word.split(" ", 1)[0]
    return None


def service_checks(
    settings: Settings, env: Mapping[str, str], home: Path, platform: str
) -> list[Check]:
    """Installed (our file), the program it runs there to stay, and running (the lock's PID)."""
    try:
        chosen = default_platform(platform)
    except NotAvailable as error:
        return [Check("service", platform, "absent", str(error))]
    path = plist_path(home) if chosen == "macos" else unit_path(home, env)
    if not path.is_file():
        return [Check("service", str(path), "warn", "not installed", "dreamd install-service")]
    try:
        ours = is_ours(chosen, path.read_bytes())
        program = _installed_program(chosen, path) if ours else None
    except (OSError, ValueError) as error:
        return [Check("service", str(path), "fail", f"cannot be read: {error}", "reinstall")]
    if not ours:
        return [Check("service", str(path), "warn", "not written by dreamd: left as it is")]
    return [_program_check(path, program, home, env), _running_check(settings, chosen)]


def _program_check(path: Path, program: str | None, home: Path, env: Mapping[str, str]) -> Check:
    if program is None or not os.access(program, os.X_OK):
        fix = "run 'dreamd install-service' again from the dreamd you use now"
        return Check("service", str(path), "fail", f"its program {program} is gone", fix)
    # The package's folder is not known from here: the program stands for it.
    warnings = placement_warnings(placement([program], Path(program), home, env))
    if warnings:
        *problems, fix = warnings
        return Check("service", str(path), "warn", "; ".join(problems), fix)
    return Check("service", str(path), "ok", f"installed, runs {program}")


def _running_check(settings: Settings, platform: str) -> Check:
    running = holder(settings.data_dir, "service")
    if running is not None:
        return Check("service", "process", "ok", f"running, pid {running.pid}")
    start = (
        "launchctl kickstart gui/$(id -u)/dev.dreamd.agent"
        if platform == "macos"
        else f"systemctl --user start {UNIT_NAME}"
    )
    return Check("service", "process", "warn", "not running", start)


# --- the extractor ------------------------------------------------------------------------------


def extractor_checks(config: Config, env: Mapping[str, str]) -> list[Check]:
    """The configured extractor: built in, its program on PATH, or its key and its server."""
    chosen = config.collect.extractor
    tables = config.extractors
    if chosen == "heuristic":
        return [Check("extractor", "heuristic", "ok", "built in: nothing to reach")]
    if chosen == "command":
        command = tables.command
        argv = list(command.argv) or preset_argv(command.preset, command.model)  # type: ignore[arg-type]
        return [_program_on_path(argv[0], env)]
    if chosen == "openai":
        table = tables.openai
        base = (table.base_url or "https://api.openai.com/v1").rstrip("/")
        return _api_checks("openai", table.api_key_env, table.model, f"{base}/models", env)
    anthropic = tables.anthropic
    base = (anthropic.base_url or "https://api.anthropic.com").rstrip("/")
    return _api_checks(
        "anthropic", anthropic.api_key_env, anthropic.model, f"{base}/v1/models", env
    )


def _program_on_path(program: str, env: Mapping[str, str]) -> Check:
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None:
        fix = "install it, or set [extractors.command] argv to the program's absolute path"
        return Check("extractor", f"command {program}", "fail", "not found on PATH", fix)
    detail = f"found at {found} (whether it is signed in shows at the first collect)"
    return Check("extractor", f"command {program}", "ok", detail)


def _api_checks(
    name: str, key_env: str, model: str, models_url: str, env: Mapping[str, str]
) -> list[Check]:
    """The API key (its variable's name only, never its value) and ``GET /models``."""
    checks = []
    key = env.get(key_env, "").strip() if key_env else ""
    if key_env and not key:
        fix = (
            f"export {key_env}=... where dreamd runs (for the service:"
            f" systemctl --user edit dreamd, Environment={key_env}=...)"
        )
        checks.append(Check("extractor", f"{name} key", "fail", f"{key_env} is not set", fix))
    elif key_env:
        checks.append(Check("extractor", f"{name} key", "ok", f"{key_env} is set"))
    probe = models_probe(models_url, key, anthropic=name == "anthropic")
    subject = f"{name} {models_url}"
    fix = f"start the server, or fix [extractors.{name}] base_url"
    if probe.error is not None:
        if probe.refused_key:
            fix = f"check {key_env}: the server refused it"
        checks.append(Check("extractor", subject, "fail", probe.error, fix))
    elif model and probe.models and model not in probe.models:
        served = ", ".join(probe.models[:5])
        fix = f"set [extractors.{name}] model to one it serves ({served})"
        checks.append(Check("extractor", subject, "warn", f"does not list model {model}", fix))
    else:
        checks.append(Check("extractor", subject, "ok", f"answers ({len(probe.models)} models)"))
    return checks


# --- output -------------------------------------------------------------------------------------


def exit_code(checks: Sequence[Check]) -> int:
    """1 when any check failed, else 0."""
    return 1 if any(check.status == "fail" for check in checks) else 0


def doctor_text(checks: Sequence[Check]) -> str:
    """One line per check: mark, what, finding; and ``fix:`` for what is not ok."""
    lines = []
    for check in checks:
        line = f"{_MARK[check.status]:<4}  {check.check} {check.subject}: {check.detail}"
        lines.append(line + (f" — fix: {check.fix}" if check.fix else ""))
    failed = sum(check.status == "fail" for check in checks)
    lines.append(f"{failed} check(s) failed" if failed else "no check failed")
    return "\n".join(lines) + "\n"


def doctor_json(checks: Sequence[Check]) -> dict[str, Any]:
    """The ``doctor --json`` document."""
    return {
        "schema": SCHEMA,
        "ok": exit_code(checks) == 0,
        "checks": [asdict(check) for check in checks],
    }
