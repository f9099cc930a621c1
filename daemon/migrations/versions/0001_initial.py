"""Session cache and per-session cursor entries.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
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
        sa.Column("activity_at", sa.Float),
        sa.Column("project", sa.Text),
        sa.Column("first_message_at", sa.Float),
        sa.Column("last_message_at", sa.Float),
        sa.Column("messages", sa.Integer, nullable=False),
        sa.Column("user_messages", sa.Integer, nullable=False),
        sa.Column("revision", sa.String),
        sa.Column("machine_opening", sa.Boolean, nullable=False),
        sa.Column("human_replies", sa.Integer, nullable=False),
        sa.Column("unresolved", sa.Text),
        sa.Column("read_at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("tool", "path", "locator", name="pk_session_cache"),
    )
    op.create_table(
        "cursor_session",
        sa.Column("tool", sa.String, nullable=False),
        sa.Column("session_id", sa.Text, nullable=False),
        sa.Column("state", sa.String, nullable=False),
        sa.Column("revision", sa.String, nullable=False),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("tool", "session_id", name="pk_cursor_session"),
    )


def downgrade() -> None:
    op.drop_table("cursor_session")
    op.drop_table("session_cache")
