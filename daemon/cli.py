"""Placeholder CLI."""


def main() -> None:
    raise SystemExit(0)
