"""Idle benchmark: the service watching 1,000 session files, doing nothing else.

Usage::

    python benchmarks/idle.py [--sessions 1000] [--seconds 60]

Lays out SESSIONS small Claude Code transcripts (in 100 project folders) and
a few empty roots of other tools under a temporary HOME, starts the real
``dreamd run`` with schedules that never fire during the run, waits for its
start-up reconcile scan, then samples for SECONDS:

- resident memory (VmRSS, and its peak VmHWM) of the service process;
- CPU seconds (user + system) spent during the window, and that as a share
  of one core.

The first start (which creates the state database and reads every session)
is reported on its own; the window measures a restart, the steady state of a
service that runs for weeks. Baseline, measured over the same window the same
way: a bare ``python -c`` that sleeps (the interpreter's own floor). Targets:
< 60 MB RSS, < 1 % of a core.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def lay_out(home: Path, sessions: int) -> None:
    projects = home / ".claude" / "projects"
    for index in range(sessions):
        folder = projects / f"-work-project-{index % 100}"
        folder.mkdir(parents=True, exist_ok=True)
        sid = f"{index:08d}-0000-4000-8000-000000000000"
        lines = []
        for turn in range(4):
            stamp = f"2026-11-01T10:{turn:02d}:00.000Z"
            base = {"sessionId": sid, "cwd": f"/work/project-{index % 100}", "timestamp": stamp}
            lines.append(
                {
                    **base,
                    "type": "user",
                    "uuid": f"u{turn}",
                    "message": {"role": "user", "content": f"step {turn} please"},
                }
            )
            lines.append({**base, "type": "assistant", "uuid": f"a{turn}",
                          "message": {"id": f"m{turn}", "role": "assistant",
                                      "content": [{"type": "text", "text": "done"}]}})  # fmt: skip
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    for empty in (".codex/sessions", ".pi/agent/sessions", ".gemini/tmp"):
        (home / empty).mkdir(parents=True, exist_ok=True)
    config = home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[collect]\nschedule = "0 0 1 1 *"\n[dream]\nschedule = "0 0 1 1 *"\n')


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS  # utime + stime


def memory_kib(pid: int) -> dict[str, int]:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in {"VmRSS", "VmHWM"}:
            values[key] = int(rest.split()[0])
    return values


def measure(pids: list[int], seconds: float) -> list[dict[str, float]]:
    """Peak RSS and CPU use of each process over the same window."""
    start_cpu = [cpu_seconds(pid) for pid in pids]
    start = time.monotonic()
    peak = [0] * len(pids)
    while time.monotonic() - start < seconds:
        time.sleep(1.0)
        peak = [max(p, memory_kib(pid)["VmRSS"]) for p, pid in zip(peak, pids, strict=True)]
    elapsed = time.monotonic() - start
    results = []
    for index, pid in enumerate(pids):
        used = cpu_seconds(pid) - start_cpu[index]
        results.append(
            {
                "rss_mb": peak[index] / 1024,
                "hwm_mb": memory_kib(pid)["VmHWM"] / 1024,
                "cpu_seconds": used,
                "core_percent": 100 * used / elapsed,
            }
        )
    return results


def start_service(home: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DREAMD_"))}
    env.update(HOME=str(home), DREAMD_LOG_LEVEL="info")
    process = subprocess.Popen(
        [sys.executable, "-m", "dreamd", "run"], stdout=subprocess.PIPE, env=env
    )
    assert process.stdout is not None
    for raw in process.stdout:
        line = json.loads(raw)
        if line.get("event") == "service.reconciled":
            print(f"start-up scan: {line['sessions']} sessions, {line['read']} read")
            break
    else:
        raise SystemExit("dreamd run exited before its start-up scan")
    return process


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dreamd-idle-") as temp:
        home = Path(temp)
        lay_out(home, options.sessions)
        baseline_process = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(10**6)"]
        )
        first = start_service(home)  # creates and migrates the state DB, reads every session
        first_rss = memory_kib(first.pid)["VmRSS"] / 1024
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)
        print(f"first start (new state DB, every session read): RSS {first_rss:.1f} MB")
        service = start_service(home)  # the steady state: a restart, as after any reboot
        try:
            time.sleep(2)  # let start-up settle before the window opens
            print(f"measuring {options.seconds:.0f} s ...", flush=True)
            service_numbers, baseline = measure(
                [service.pid, baseline_process.pid], options.seconds
            )
        finally:
            service.send_signal(signal.SIGTERM)
            code = service.wait(timeout=30)
            baseline_process.kill()
            baseline_process.wait()
    print(f"{'':22}{'dreamd run':>12}{'python sleep':>14}{'ratio':>8}")
    for key, label in (
        ("rss_mb", "RSS (MB, peak)"),
        ("hwm_mb", "RSS high-water (MB)"),
        ("core_percent", "CPU (% of a core)"),
        ("cpu_seconds", "CPU seconds"),
    ):
        ours, base = service_numbers[key], baseline[key]
        ratio = f"{ours / base:.1f}x" if base > 0 else "-"
        print(f"{label:22}{ours:12.2f}{base:14.2f}{ratio:>8}")
    rss_ok = service_numbers["rss_mb"] < 60
    cpu_ok = service_numbers["core_percent"] < 1
    print(f"targets: RSS < 60 MB {'met' if rss_ok else 'MISSED'}; "
          f"CPU < 1 % {'met' if cpu_ok else 'MISSED'}; exit code on SIGTERM {code}")  # fmt: skip


if __name__ == "__main__":
    main()
