"""Job runs: one row per collect or dream run, its mode, outcome and summary.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "job_run",
        sa.Column("run_id", sa.String, nullable=False),
        sa.Column("job", sa.String, nullable=False),
        sa.Column("mode", sa.String, nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float),
        sa.Column("outcome", sa.String),
        sa.Column("summary", sa.Text, nullable=False, server_default="{}"),
        sa.PrimaryKeyConstraint("run_id", name="pk_job_run"),
    )
    op.create_index("ix_job_run_job_started_at", "job_run", ["job", "started_at"])


def downgrade() -> None:
    op.drop_index("ix_job_run_job_started_at", table_name="job_run")
    op.drop_table("job_run")
