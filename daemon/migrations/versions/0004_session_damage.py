"""Session cache: the damaged lines and notes readers report, and a fresh read of everything.

Readers now report sessions read from damaged files (``damaged_lines``) and
what else they noted (an impossible working directory). Rows cached before
carry neither, and their file versions still match, so they would never be
read again: the cache is emptied and the next scan reads every session once.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("session_cache", sa.Column("damaged_lines", sa.Text, nullable=True))
    op.add_column("session_cache", sa.Column("notes", sa.Text, nullable=True))
    op.execute("DELETE FROM session_cache")


def downgrade() -> None:
    with op.batch_alter_table("session_cache") as batch:
        batch.drop_column("notes")
        batch.drop_column("damaged_lines")
