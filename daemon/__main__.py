"""``python -m dreamd``."""

from dreamd.cli import main

main()
