"""Issue 15 item 9: passwords on command lines and the credential shapes added for it.

Each shape of ``tests.collect.secretshapes`` is a rule the heuristic collector
plants when nothing filters it (checked here), and the filter finds its
secret with its kind, so the collector drops it. The look-alikes (a port
after ``ssh -p``, ``--password-stdin``, a commit SHA, a UUID, a hash, prose
about keys) hold nothing the filter would drop.
"""

from __future__ import annotations

import random
from datetime import date

import pytest

from dreamd.collect.heuristic import HEURISTIC
from dreamd.collect.pipeline import SessionInfo, Window
from dreamd.readers import Message
from dreamd.secrets import KINDS, filter_item, find_secrets, redact
from tests.collect.secretshapes import LOOKALIKES, SHAPES

SESSION = SessionInfo("claude-code", "laptop", "sess-1", "/work/app", date(2025, 3, 4))
CASES = [
    (f"{name}-{seed}", kind, *shape(random.Random(f"{name}/{seed}")))
    for name, (kind, shape) in SHAPES.items()
    for seed in range(3)
]


def planted(text: str) -> list[str]:
    """The bodies the heuristic extractor plants from one user message (no filter)."""
    window = Window(SESSION, (Message("m0", "user", text, None),), technical_context=True)
    return [item.body for item in HEURISTIC.topics(window)]


def test_the_corpus_has_at_least_60_shapes_and_every_new_kind() -> None:
    assert len(SHAPES) >= 60
    added = {kind for kind, _ in SHAPES.values()}
    assert {"command-password", "stated-secret", "vault-token", "age-secret-key"} <= added
    assert added <= set(KINDS)


@pytest.mark.parametrize(
    ("kind", "text", "secret"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_shape_is_found_with_its_kind_and_redacted(kind: str, text: str, secret: str) -> None:
    start = text.index(secret)
    covering = [m for m in find_secrets(text) if m.start <= start and m.end >= start + len(secret)]
    assert [m.kind for m in covering] == [kind]
    assert secret not in redact(text)[0]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_rule_would_be_planted_and_the_filter_drops_it(name: str) -> None:
    """Without the filter the rule is planted holding the secret; with it, nothing is kept."""
    text, secret = SHAPES[name][1](random.Random(name))
    window = Window(SESSION, (Message("m0", "user", text, None),), technical_context=True)
    items = HEURISTIC.topics(window)
    assert any(secret in item.body for item in items), text
    assert all(filter_item(item).item is None for item in items if secret in item.body)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_a_lookalike_is_planted_and_kept(text: str) -> None:
    assert find_secrets(text) == []
    window = Window(SESSION, (Message("m0", "user", text, None),), technical_context=True)
    items = HEURISTIC.topics(window)
    assert items and all(filter_item(item).item is not None for item in items), text


@pytest.mark.parametrize(
    "text",
    [
        "ssh -p 2222 host",
        "sshpass -e ssh -p 2222 host",
        "mysql -p shop",
        "mysql -u root -p",
        "docker login --password-stdin ghcr.io",
        "docker login -u ci -p $CI_TOKEN",
        "redis-cli -a ${REDIS_PASSWORD} ping",
        "curl -u admin: https://x",
        'curl -u "$USER:$PASS" https://x',
        "curl -u user https://x",
        "--token-file /run/secrets/token",
        "--password <password>",
        "--no-password mydb",
        "pass --password and --user together",
        "the password is stored in the vault",
        "the API key is rotated every 90 days",
        "token budget 4096 tokens",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "sk-learn is not a package; sk-spinner is a CSS class",
        "files.AbCdEfGhIjKlMnOpQrStUvWx is a module path",
        "echo hello | sudo -S true",
        "AC/DC played at 0123456789abcdef",
        "postgresql+psycopg2://user:password@myhost1/dbname?host=myhost1",
    ],
)
def test_command_lookalikes_hold_no_secret(text: str) -> None:
    assert find_secrets(text) == []
