"""Extraction benchmark: the heuristic extractor scored against the shared labelled sessions.

Usage::

    python benchmarks/extraction.py [--shared DIR] [--dreamd PATH] [--verbose]

Lays the shared transcript fixtures out under a temporary HOME with
``shared/tools/fixture_home.py``, runs ``shared/tools/score_extraction.py`` on
this checkout's ``dreamd`` (``.venv/bin/dreamd`` when it exists, else the one
beside this Python, else the one on ``PATH``), parses the scorer's summary line
and prints each figure with its target (issue 11) and whether it is met:

- precision at least 80 % (planted items that match a label);
- recall at least 50 % of the high-importance labels;
- recall at least 35 % of all labels.

``--verbose`` also prints the scorer's report (missed labels, unmatched items).
Skips with a message and exit status 0 when the shared folder (``../shared``
beside the checkout) is absent; exits 2 when the scorer cannot run or its
summary line cannot be read.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
DEFAULT_SHARED = CHECKOUT.parent / "shared"

#: Issue 11 targets: (figure, minimum percentage).
TARGETS: tuple[tuple[str, float], ...] = (
    ("precision", 80.0),
    ("high-importance recall", 50.0),
    ("recall", 35.0),
)

_SUMMARY = re.compile(
    r"^extraction: recall (?P<recall>[\d.]+)% \((?P<found>\d+)/(?P<labels>\d+)\), "
    r"high-importance recall (?P<high>[\d.]+|n/a)%?, precision (?P<precision>[\d.]+|n/a)%? "
    r"\((?P<matching>\d+)/(?P<items>\d+)\), (?P<planted>\d+) items from (?P<sessions>\d+)"
)


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of the scorer's last line, in percent (``None`` where it printed n/a)."""

    recall: float
    high_recall: float | None
    precision: float | None
    line: str

    def figure(self, name: str) -> float | None:
        """One figure by the name ``TARGETS`` uses."""
        return {
            "precision": self.precision,
            "high-importance recall": self.high_recall,
            "recall": self.recall,
        }[name]


def parse_summary(output: str) -> Summary | None:
    """The scorer's summary line in ``output``, or ``None`` when there is none."""
    for line in reversed(output.splitlines()):
        found = _SUMMARY.match(line.strip())
        if found:
            high, precision = found.group("high"), found.group("precision")
            return Summary(
                float(found.group("recall")),
                None if high == "n/a" else float(high),
                None if precision == "n/a" else float(precision),
                line.strip(),
            )
    return None


def find_dreamd(given: str | None) -> str | None:
    """This checkout's ``dreamd`` executable (see the module docstring for the order)."""
    candidates = [given] if given else []
    candidates += [
        str(CHECKOUT / ".venv" / "bin" / "dreamd"),
        str(Path(sys.executable).with_name("dreamd")),
    ]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return candidate
    return shutil.which("dreamd")


def score(shared: Path, dreamd: str, verbose: bool) -> tuple[int, str]:
    """Lay out the fixture HOME, run the scorer; its exit status and standard output."""
    fixtures = shared / "fixtures" / "transcripts"
    with tempfile.TemporaryDirectory(prefix="dreamd-extraction-") as home:
        subprocess.run(
            [sys.executable, str(shared / "tools" / "fixture_home.py"), str(fixtures), home],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        command = [sys.executable, str(shared / "tools" / "score_extraction.py")]
        command += ["--dreamd", dreamd, "--home", home, "--labels", str(fixtures / "LABELS.json")]
        result = subprocess.run(
            command + (["--verbose"] if verbose else []),
            capture_output=True,
            text=True,
            check=False,
        )
    return result.returncode, result.stdout + ("" if result.returncode == 0 else result.stderr)


def report(summary: Summary) -> list[str]:
    """One line per figure: value, target, met or not met."""
    lines = [summary.line, ""]
    for name, target in TARGETS:
        value = summary.figure(name)
        shown = "n/a" if value is None else f"{value:.1f} %"
        verdict = "met" if value is not None and value >= target else "not met"
        lines.append(f"{name:<24} {shown:>8}   target >= {target:.0f} %   {verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when it ran (or was skipped), 2 when it could not run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared folder")
    parser.add_argument("--dreamd", help="the dreamd executable to score")
    parser.add_argument("--verbose", action="store_true", help="print the scorer's report too")
    args = parser.parse_args(argv)
    tools = args.shared / "tools"
    if not (tools / "score_extraction.py").is_file() or not (tools / "fixture_home.py").is_file():
        print(f"skipped: no shared fixtures and scorer at {args.shared} (../shared is absent)")
        return 0
    dreamd = find_dreamd(args.dreamd)
    if dreamd is None:
        print("cannot run: no dreamd executable (pip install -e . in a venv first)")
        return 2
    status, output = score(args.shared, dreamd, args.verbose)
    summary = parse_summary(output)
    if verbose_output := (args.verbose or summary is None or status != 0):
        print(output.rstrip())
    if summary is None:
        print("cannot run: the scorer printed no summary line", file=sys.stderr)
        return 2
    if verbose_output:
        print()
    print("\n".join(report(summary)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
