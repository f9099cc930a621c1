"""The collector (seed 002): selection, windows, extraction, write plans, cursor, report."""
