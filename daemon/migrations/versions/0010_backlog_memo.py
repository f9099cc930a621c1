"""What ``status`` computes, kept between runs (issue 13): the backlog and the fire times.

``dreamd status`` counted the sessions waiting by selecting over every cached
session each time. ``backlog_memo`` keeps the last count with what it was
counted from (``dreamd.collect.waiting``), and ``session_cache_generation``
counts the writes to the session cache, so a count is used only while the
cache is the one it was counted from. ``schedule_memo`` keeps each job's next
fire times (``dreamd.schedule.KeptFires``): asking the trigger meant loading
the scheduler on every ``status``.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "session_cache_generation",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_session_cache_generation"),
    )
    op.create_table(
        "backlog_memo",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.Column("inputs", sa.String, nullable=False),
        sa.Column("memo", sa.LargeBinary, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_backlog_memo"),
    )
    op.create_table(
        "schedule_memo",
        sa.Column("job", sa.String, nullable=False),
        sa.Column("memo", sa.LargeBinary, nullable=False),
        sa.PrimaryKeyConstraint("job", name="pk_schedule_memo"),
    )


def downgrade() -> None:
    op.drop_table("schedule_memo")
    op.drop_table("backlog_memo")
    op.drop_table("session_cache_generation")
