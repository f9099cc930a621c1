"""Session cache: one packed value per session instead of a column per field.

A listing loads every cached session; building ten thousand of them from
twenty columns each, with three timestamps converted in Python, was most of
what ``status`` and a rescan cost. Each row now holds the session's metadata
as one MessagePack value (``dreamd.staterows.row_from_info``), decoded for all rows
in one call. The old rows are not converted: the cache is emptied, as 0004
did, and the next scan reads every session once (the collector's cursor, not
this cache, records what was collected).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def _cache_table(*columns: sa.Column[object]) -> None:
    """The session cache, keyed by tool, path and locator, with ``columns`` besides."""
    op.create_table(
        "session_cache",
        sa.Column("tool", sa.String, nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("locator", sa.Text, nullable=False),
        *columns,
        sa.PrimaryKeyConstraint("tool", "path", "locator", name="pk_session_cache"),
    )


def upgrade() -> None:
    op.drop_table("session_cache")
    _cache_table(
        sa.Column("read_at", sa.Float, nullable=False),
        sa.Column("info", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    """The cache as 0008 had it, empty: its rows were never converted either way."""
    op.drop_table("session_cache")
    _cache_table(
        *(
            sa.Column(name, kind, nullable=nullable)
            for name, kind, nullable in (
                ("session_id", sa.Text, False),
                ("device", sa.Integer, False),
                ("inode", sa.Integer, False),
                ("size", sa.Integer, False),
                ("mtime_ns", sa.Integer, False),
                ("marker", sa.Text, False),
                ("activity_at", sa.Float, True),
                ("project", sa.Text, True),
                ("first_message_at", sa.Float, True),
                ("last_message_at", sa.Float, True),
                ("messages", sa.Integer, False),
                ("user_messages", sa.Integer, False),
                ("revision", sa.String, True),
                ("machine_opening", sa.Boolean, False),
                ("human_replies", sa.Integer, False),
                ("unresolved", sa.Text, True),
                ("read_at", sa.Float, False),
                ("damaged_lines", sa.Text, True),
                ("notes", sa.Text, True),
            )
        )
    )
