"""The extraction benchmark script: it reads the scorer's summary and skips without fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.extraction import TARGETS, main, parse_summary, report

LINE = (
    "extraction: recall 40.0% (20/50), high-importance recall 60.0%, precision 75.0% (15/20), "
    "20 items from 30 labelled sessions"
)


def test_the_summary_line_is_parsed_into_figures() -> None:
    """Recall, high-importance recall and precision come out of the scorer's last line."""
    summary = parse_summary(f"run 1: selected 3\n{LINE}\n")
    assert summary is not None
    assert (summary.recall, summary.high_recall, summary.precision) == (40.0, 60.0, 75.0)


def test_each_figure_is_reported_against_its_target() -> None:
    """Every issue 11 target is printed once, met or not met by its figure."""
    summary = parse_summary(LINE)
    assert summary is not None
    lines = report(summary)
    verdicts = {
        name: "not met" if line.endswith("not met") else "met"
        for name, _ in TARGETS
        for line in lines
        if line.startswith(f"{name} ")
    }
    assert verdicts == {"precision": "not met", "high-importance recall": "met", "recall": "met"}


def test_output_without_a_summary_gives_none() -> None:
    """A scorer that printed no summary line gives nothing to report."""
    assert parse_summary("error: dreamd failed\n") is None


def test_it_skips_when_the_shared_folder_is_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without ../shared the benchmark says it skipped and exits 0."""
    assert main(["--shared", str(tmp_path / "shared")]) == 0
    assert capsys.readouterr().out.startswith("skipped:")
