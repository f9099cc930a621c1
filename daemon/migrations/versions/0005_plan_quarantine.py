"""Quarantined write plans: a plan that could not be saved or replayed, with its reason.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "quarantined_plan",
        sa.Column("plan_id", sa.String, nullable=False),
        sa.Column("session", sa.Text, nullable=False),
        sa.Column("revision", sa.Text, nullable=False),
        sa.Column("window_key", sa.Text, nullable=False),
        sa.Column("stage", sa.String, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("path", sa.Text),
        sa.Column("run_id", sa.String, nullable=False),
        sa.Column("quarantined_at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("plan_id", name="pk_quarantined_plan"),
    )


def downgrade() -> None:
    op.drop_table("quarantined_plan")
