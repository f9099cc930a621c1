"""The collector's cursor: one JSON document per host, versioned for compare-and-swap.

Replaces the per-session placeholder table of 0001, which nothing wrote.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "collector_cursor",
        sa.Column("host", sa.String, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("host", name="pk_collector_cursor"),
    )
    op.drop_table("cursor_session")


def downgrade() -> None:
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
    op.drop_table("collector_cursor")
