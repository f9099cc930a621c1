"""Job runs: the process id of each run, so a run whose process died can be closed.

A run killed by SIGKILL never records its finish; with its pid the next run
(and ``dreamd status``) can tell that its process is gone and close it as
``interrupted``.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("job_run", sa.Column("pid", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("job_run") as batch:
        batch.drop_column("pid")
