"""Run the state database's Alembic migrations from inside dreamd.

The Alembic ``Config`` is built in code (no ``alembic.ini``) and ``env.py``
never calls ``fileConfig``, so migrating does not replace dreamd's logging.
Migrations run in one ``BEGIN IMMEDIATE`` transaction: two daemons starting
together serialise, and the second finds the schema already at head.
"""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

__all__ = ["alembic_config", "head", "upgrade"]


def alembic_config() -> Config:
    """Alembic configuration pointing at this package's migration scripts."""
    config = Config()
    config.set_main_option("script_location", "dreamd:migrations")
    return config


def head() -> str:
    """The newest revision among the migration scripts."""
    revision = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert revision is not None
    return revision


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database behind ``engine`` up to ``revision``."""
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
