"""Transcript read evidence: the memory files each recent transcript shows an agent reading.

The dream's consult gate (seed 000 STEP 2.5) keeps a stale memory that an
agent read in the last 14 days. Finding those reads means scanning every
recent transcript; this table keeps what one scan found, keyed by the
transcript's path and file version, so a dream re-reads only the transcripts
that changed since the last one (issue 13).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "transcript_reads",
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("device", sa.Integer, nullable=False),
        sa.Column("inode", sa.Integer, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("mtime_ns", sa.Integer, nullable=False),
        sa.Column("memory_paths", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("path", name="pk_transcript_reads"),
    )


def downgrade() -> None:
    op.drop_table("transcript_reads")
