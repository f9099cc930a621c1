"""Store key index: which operation keys each file of a memory folder held, at which version.

A collect finds an item by its operation key before it plants it; the
folder's files are the truth, but reading and parsing every file per plant
made a collect's cost grow with the folder. The index remembers each file's
version (inode, size, modification and change times), the keys it held and
the session its item came from;
an entry is used only while the file still has that version.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "store_key_index",
        sa.Column("store", sa.Text, nullable=False),
        sa.Column("location", sa.Text, nullable=False),
        sa.Column("inode", sa.Integer, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("mtime_ns", sa.Integer, nullable=False),
        sa.Column("ctime_ns", sa.Integer, nullable=False),
        sa.Column("keys", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("store", "location", name="pk_store_key_index"),
    )


def downgrade() -> None:
    op.drop_table("store_key_index")
