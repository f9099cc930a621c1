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


def upgrade() -> None:
    op.drop_table("session_cache")
    op.create_table(
        "session_cache",
        sa.Column("tool", sa.String, nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("locator", sa.Text, nullable=False),
        sa.Column("read_at", sa.Float, nullable=False),
        sa.Column("info", sa.LargeBinary, nullable=False),
        sa.PrimaryKeyConstraint("tool", "path", "locator", name="pk_session_cache"),
    )


def downgrade() -> None:
    op.drop_table("session_cache")
    op.create_table(
        "session_cache",
        sa.Column("tool", sa.String, nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("locator", sa.Text, nullable=False),
        sa.Column("session_id", sa.Text, nullable=False),
        sa.Column("device", sa.Integer, nullable=False),
        sa.Column("inode", sa.Integer, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("mtime_ns", sa.Integer, nullable=False),
        sa.Column("marker", sa.Text, nullable=False),
        sa.Column("activity_at", sa.Float, nullable=True),
        sa.Column("project", sa.Text, nullable=True),
        sa.Column("first_message_at", sa.Float, nullable=True),
        sa.Column("last_message_at", sa.Float, nullable=True),
        sa.Column("messages", sa.Integer, nullable=False),
        sa.Column("user_messages", sa.Integer, nullable=False),
        sa.Column("revision", sa.String, nullable=True),
        sa.Column("machine_opening", sa.Boolean, nullable=False),
        sa.Column("human_replies", sa.Integer, nullable=False),
        sa.Column("unresolved", sa.Text, nullable=True),
        sa.Column("read_at", sa.Float, nullable=False),
        sa.Column("damaged_lines", sa.Text, nullable=True),
        sa.Column("notes", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("tool", "path", "locator", name="pk_session_cache"),
    )
