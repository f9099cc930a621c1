"""The secret filter (seed 002 rule 5): credentials are found, look-alikes are not.

Every credential below is generated at test time from the provider's published
shape with a random body; none is a real key. Look-alikes are the ordinary
things a coding transcript is full of (hashes, UUIDs, paths, placeholders,
env var names, prose about tokens and passwords).

Speed (no timed assertion; ``find_secrets`` called once per line, measured on
this machine): the cleaned conversations of the shared transcript fixtures
(8,300 lines) ran at 60,000-72,000 lines/s; the raw JSONL of the same fixtures
split at escaped newlines (445,000 lines of code, tool output and JSON) at
about 54,000 lines/s (3 MB/s); 900,000 lines of installed Python sources at
about 95,000 lines/s. The target is 18,000 lines/s. None of these real texts
gave a false positive apart from literal dummy values under key names
(``apiKey: 'proxy-handled'``) and documentation URLs (``scott:tiger@``), which
are credential-shaped by design.
"""

from __future__ import annotations

import base64
import io
import json
import random
import re
import string
import uuid
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import structlog
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamd.readers import READERS, Conversation, SessionRef
from dreamd.secrets import (
    KINDS,
    FilterResult,
    SecretMatch,
    contains_secret,
    filter_item,
    find_secrets,
    key_strength,
    redact,
    redact_log_event,
    scan_item,
)
from dreamd.stores import MemoryItem, Quote
from tests.collect.secretshapes import SHAPES as MORE_SHAPES

# --- random material ----------------------------------------------------------------

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"


def chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def generated(rng: random.Random, alphabet: str, n: int) -> str:
    """Random characters holding at least one upper, lower and digit, as real keys do."""
    body = [*chars(rng, alphabet, n - 3), rng.choice(UPPER), rng.choice(LOWER), rng.choice(DIGITS)]
    rng.shuffle(body)
    return "".join(body)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def password(rng: random.Random) -> str:
    return generated(rng, ALNUM + "!%^*+", rng.randint(10, 20))


def jwt(rng: random.Random, alg: str = "HS256") -> str:
    header = b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    claims = {"sub": str(rng.randint(1, 10**9)), "iat": rng.randint(10**9, 2 * 10**9)}
    payload = b64url(json.dumps(claims).encode())
    return f"{header}.{payload}.{chars(rng, B64URL, 43)}"


def pem_body(rng: random.Random, lines: int = 6) -> str:
    return "\n".join(chars(rng, B64, 64) for _ in range(lines))


def pem(rng: random.Random, label: str) -> str:
    return f"-----BEGIN {label}-----\n{pem_body(rng)}\n-----END {label}-----"


# --- credential shapes --------------------------------------------------------------

#: Builds (text, secret) from a random source: ``secret`` is the part that must be
#: covered by a match and must not survive ``redact``.
Shape = Callable[[random.Random], tuple[str, str]]


def bare(template: str, make: Callable[[random.Random], str]) -> Shape:
    """A shape whose secret is ``make(rng)`` placed into ``template`` at ``{}``."""

    def shape(rng: random.Random) -> tuple[str, str]:
        secret = make(rng)
        return template.format(secret), secret

    return shape


def aws_key(prefix: str) -> Callable[[random.Random], str]:
    return lambda rng: prefix + chars(rng, UPPER + DIGITS, 16)


def b64_40(rng: random.Random) -> str:
    return generated(rng, B64, 40)


def anthropic(rng: random.Random) -> str:
    return f"sk-ant-api03-{chars(rng, B64URL, 93)}AA"


def prefixed(prefix: str, alphabet: str, n: int) -> Callable[[random.Random], str]:
    return lambda rng: prefix + generated(rng, alphabet, n)


def slack_bot(rng: random.Random) -> str:
    return f"xoxb-{chars(rng, DIGITS, 12)}-{chars(rng, DIGITS, 13)}-{chars(rng, ALNUM, 24)}"


def slack_webhook(rng: random.Random) -> str:
    return (
        f"https://hooks.slack.com/services/T{chars(rng, UPPER + DIGITS, 8)}"
        f"/B{chars(rng, UPPER + DIGITS, 10)}/{chars(rng, ALNUM, 24)}"
    )


def sendgrid(rng: random.Random) -> str:
    return f"SG.{chars(rng, B64URL, 22)}.{chars(rng, B64URL, 43)}"


def telegram(rng: random.Random) -> str:
    return f"{rng.randint(10**8, 10**9)}:AA{chars(rng, B64URL, 33)}"


def azure_key(rng: random.Random) -> str:
    return generated(rng, B64, 86) + "=="


def basic_credentials(rng: random.Random) -> str:
    return base64.b64encode(f"deploy:{password(rng)}".encode()).decode()


def account(rng: random.Random) -> str:
    return chars(rng, DIGITS, 12)


def arn(template: str) -> Callable[[random.Random], str]:
    return lambda rng: template.format(account=account(rng), rnd=chars(rng, LOWER + DIGITS, 8))


def service_account_json(rng: random.Random) -> tuple[str, str]:
    escaped = pem_body(rng).replace("\n", "\\n")
    key = f"-----BEGIN PRIVATE KEY-----\\n{escaped}\\n-----END PRIVATE KEY-----"
    text = json.dumps({"type": "service_account", "client_email": "ci@p.iam.gserviceaccount.com"})
    return text[:-1] + f', "private_key": "{key}\\n"}}', key


def truncated_pem(rng: random.Random) -> tuple[str, str]:
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{pem_body(rng, 3)}"
    return f"here is the key (cut off):\n{block}", block


SHAPES: dict[str, tuple[str, Shape]] = {
    # AWS
    "aws-akia-config": ("aws-access-key", bare("aws_access_key_id = {}", aws_key("AKIA"))),
    "aws-asia-bare": ("aws-access-key", bare("temporary creds {} expire soon", aws_key("ASIA"))),
    "aws-akia-env": ("aws-access-key", bare("export AWS_ACCESS_KEY_ID={}", aws_key("AKIA"))),
    "aws-secret-ini": ("aws-secret-key", bare("aws_secret_access_key = {}", b64_40)),
    "aws-secret-env": ("aws-secret-key", bare("AWS_SECRET_ACCESS_KEY={}", b64_40)),
    "aws-secret-sts": ("aws-secret-key", bare('{{"SecretAccessKey": "{}"}}', b64_40)),
    # model providers
    "anthropic-env": ("anthropic-key", bare("ANTHROPIC_API_KEY={}", anthropic)),
    "anthropic-bare": ("anthropic-key", bare("my key is {} ok", anthropic)),
    "anthropic-admin": (
        "anthropic-key",
        bare("{}", lambda r: f"sk-ant-admin01-{chars(r, B64URL, 93)}AA"),
    ),
    "openai-legacy": ("openai-key", bare("OPENAI_API_KEY={}", prefixed("sk-", ALNUM, 48))),
    "openai-project": ("openai-key", bare("use {} here", prefixed("sk-proj-", B64URL, 156))),
    "openai-svcacct": ("openai-key", bare("key: {}", prefixed("sk-svcacct-", B64URL, 120))),
    "huggingface": ("huggingface-token", bare("HF_TOKEN={}", prefixed("hf_", UPPER + LOWER, 34))),
    "huggingface-cli": (
        "huggingface-token",
        bare("huggingface-cli login --token {}", prefixed("hf_", ALNUM, 34)),
    ),
    # code hosts and registries
    "github-ghp": (
        "github-token",
        bare("git clone https://x:{}@github.com/o/r", prefixed("ghp_", ALNUM, 36)),
    ),
    "github-gho": ("github-token", bare("gh auth token -> {}", prefixed("gho_", ALNUM, 36))),
    "github-ghu": ("github-token", bare("{}", prefixed("ghu_", ALNUM, 36))),
    "github-ghs": ("github-token", bare("GITHUB_TOKEN: {}", prefixed("ghs_", ALNUM, 36))),
    "github-ghr": ("github-token", bare("refresh={}", prefixed("ghr_", ALNUM, 36))),
    "github-pat": (
        "github-token",
        bare("{}", lambda r: f"github_pat_{generated(r, ALNUM, 22)}_{generated(r, ALNUM, 59)}"),
    ),
    "github-authorization-token": (
        "github-token",
        bare("Authorization: token {}", prefixed("ghp_", ALNUM, 36)),
    ),
    "gitlab-pat": ("gitlab-token", bare("GITLAB_TOKEN={}", prefixed("glpat-", B64URL, 20))),
    "gitlab-deploy": ("gitlab-token", bare("deploy token {}", prefixed("gldt-", B64URL, 24))),
    "gitlab-runner": ("gitlab-token", bare("token = {}", prefixed("glrt-", B64URL, 24))),
    "npm-token": (
        "npm-token",
        bare("//registry.npmjs.org/:_authToken={}", prefixed("npm_", ALNUM, 36)),
    ),
    "npm-bare": ("npm-token", bare("NPM_TOKEN {}", prefixed("npm_", ALNUM, 36))),
    "pypi-token": (
        "pypi-token",
        bare("password = {}", prefixed("pypi-AgEIcHlwaS5vcmc", B64URL, 60)),
    ),
    # chat and mail
    "slack-bot": ("slack-token", bare("SLACK_BOT_TOKEN={}", slack_bot)),
    "slack-user": (
        "slack-token",
        bare(
            "{}",
            lambda r: f"xoxp-{chars(r, DIGITS, 11)}-{chars(r, DIGITS, 12)}-{chars(r, HEX, 32)}",
        ),
    ),
    "slack-app": (
        "slack-token",
        bare(
            "app token {}", lambda r: f"xapp-1-A{chars(r, UPPER + DIGITS, 10)}-{chars(r, HEX, 64)}"
        ),
    ),
    "slack-webhook": ("slack-webhook", bare("curl -X POST {} -d @msg.json", slack_webhook)),
    "sendgrid": ("sendgrid-key", bare("SENDGRID_API_KEY={}", sendgrid)),
    "telegram": ("telegram-bot-token", bare("bot token {} for the alerts bot", telegram)),
    # cloud
    "google-api-key": ("google-api-key", bare("maps key {}", prefixed("AIza", B64URL, 35))),
    "google-api-key-json": (
        "google-api-key",
        bare('{{"apiKey": "{}"}}', prefixed("AIza", B64URL, 35)),
    ),
    "google-oauth-secret": (
        "google-oauth-secret",
        bare("client secret {}", prefixed("GOCSPX-", B64URL, 28)),
    ),
    "google-service-account": ("private-key", service_account_json),
    "azure-storage": (
        "azure-key",
        bare(
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net",
            azure_key,
        ),
    ),
    "azure-servicebus": (
        "azure-key",
        bare(
            "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={}",
            azure_key,
        ),
    ),
    "azure-sas": (
        "azure-sas",
        bare(
            "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-01-01&sig={}",
            lambda r: generated(r, ALNUM, 43) + "%3D",
        ),
    ),
    "digitalocean": (
        "digitalocean-token",
        bare("DO_TOKEN={}", lambda r: "dop_v1_" + chars(r, HEX, 64)),
    ),
    "shopify": (
        "shopify-token",
        bare("X-Shopify-Access-Token: {}", lambda r: "shpat_" + chars(r, HEX, 32)),
    ),
    # payments
    "stripe-live": ("stripe-key", bare("STRIPE_SECRET_KEY={}", prefixed("sk_live_", ALNUM, 24))),
    "stripe-test": ("stripe-key", bare("stripe.api_key = '{}'", prefixed("sk_test_", ALNUM, 99))),
    "stripe-restricted": ("stripe-key", bare("{}", prefixed("rk_live_", ALNUM, 24))),
    "stripe-webhook": ("stripe-key", bare("signing secret {}", prefixed("whsec_", ALNUM, 32))),
    # JWTs
    "jwt-bare": ("jwt", bare("session cookie {}", jwt)),
    "jwt-rs256": ("jwt", bare("id_token={}", lambda r: jwt(r, "RS256"))),
    "jwt-bearer": ("jwt", bare("Authorization: Bearer {}", jwt)),
    "jwt-json": ("jwt", bare('{{"access_token": "{}", "expires_in": 3600}}', jwt)),
    # private keys
    "pem-rsa": ("private-key", bare("{}", lambda r: pem(r, "RSA PRIVATE KEY"))),
    "pem-ec": ("private-key", bare("key.pem:\n{}\n", lambda r: pem(r, "EC PRIVATE KEY"))),
    "pem-openssh": ("private-key", bare("{}", lambda r: pem(r, "OPENSSH PRIVATE KEY"))),
    "pem-pkcs8": ("private-key", bare("```\n{}\n```", lambda r: pem(r, "PRIVATE KEY"))),
    "pem-encrypted": ("private-key", bare("{}", lambda r: pem(r, "ENCRYPTED PRIVATE KEY"))),
    "pem-pgp": ("private-key", bare("{}", lambda r: pem(r, "PGP PRIVATE KEY BLOCK"))),
    "pem-truncated": ("private-key", truncated_pem),
    # URLs and connection strings
    "url-postgres": (
        "url-credentials",
        bare("DATABASE_URL=postgres://app:{}@db.internal:5432/app", password),
    ),
    "url-postgresql-driver": (
        "url-credentials",
        bare('create_engine("postgresql+psycopg://u:{}@localhost/db")', password),
    ),
    "url-mysql": ("url-credentials", bare("mysql://root:{}@127.0.0.1:3306/shop", password)),
    "url-mongodb-srv": (
        "url-credentials",
        bare("mongodb+srv://admin:{}@cluster0.ab1cd.mongodb.net/", password),
    ),
    "url-redis-no-user": ("url-credentials", bare("REDIS_URL=redis://:{}@cache:6379/0", password)),
    "url-amqp": ("url-credentials", bare("amqp://guest:{}@rabbit:5672/", password)),
    "url-https": (
        "url-credentials",
        bare("pip install --index-url https://ci:{}@pypi.corp.example/simple pkg", password),
    ),
    "url-ftp": ("url-credentials", bare("ftp://backup:{}@ftp.example.net/dump.sql", password)),
    "url-short": (
        "url-credentials",
        bare("postgres://u:{}@h/db", lambda r: chars(r, UPPER + DIGITS, 2)),
    ),
    # headers
    "bearer-opaque": (
        "bearer-token",
        bare('curl -H "Authorization: Bearer {}" https://api', lambda r: generated(r, B64URL, 40)),
    ),
    "bearer-lowercase": (
        "bearer-token",
        bare("authorization: bearer {}", lambda r: generated(r, HEX + "G", 32)),
    ),
    "basic-auth": ("authorization", bare("Authorization: Basic {}", basic_credentials)),
    "basic-auth-json": (
        "authorization",
        bare('{{"Authorization": "Basic {}"}}', basic_credentials),
    ),
    # ARNs (seed 002 names them)
    "arn-role": (
        "aws-arn",
        bare("assume {} first", arn("arn:aws:iam::{account}:role/deploy-{rnd}")),
    ),
    "arn-s3": ("aws-arn", bare("bucket {}", arn("arn:aws:s3:::corp-backups-{rnd}"))),
    "arn-lambda": (
        "aws-arn",
        bare("{}", arn("arn:aws:lambda:eu-west-1:{account}:function:ingest-{rnd}")),
    ),
    "arn-secret": (
        "aws-arn",
        bare("{}.", arn("arn:aws:secretsmanager:us-east-1:{account}:secret:prod/db-{rnd}")),
    ),
    "arn-sts": (
        "aws-arn",
        bare('"Arn": "{}"', arn("arn:aws:sts::{account}:assumed-role/ci/{rnd}")),
    ),
    "arn-china": (
        "aws-arn",
        bare("{}", arn("arn:aws-cn:ec2:cn-north-1:{account}:instance/i-{rnd}")),
    ),
    "arn-govcloud": (
        "aws-arn",
        bare("({})", arn("arn:aws-us-gov:kms:us-gov-west-1:{account}:key/{rnd}")),
    ),
    # sensitive key = value
    "env-db-password": ("sensitive-assignment", bare("DB_PASSWORD={}", password)),
    "env-pgpassword": ("sensitive-assignment", bare("PGPASSWORD={} psql -h db", password)),
    "env-secret-key": (
        "sensitive-assignment",
        bare("SECRET_KEY={}", lambda r: generated(r, ALNUM + "!@^*-_+", 50)),
    ),
    "env-quoted": ("sensitive-assignment", bare('export SMTP_PASS="{}"', password)),
    "env-api-key": (
        "sensitive-assignment",
        bare("WEATHER_API_KEY={}", lambda r: chars(r, HEX, 32)),
    ),
    "yaml-password": ("sensitive-assignment", bare("  password: {}\n  host: db", password)),
    "yaml-quoted": (
        "sensitive-assignment",
        bare("client_secret: '{}'", lambda r: generated(r, B64URL, 40)),
    ),
    "yaml-token": ("sensitive-assignment", bare("  token: {}", lambda r: generated(r, HEX, 40))),
    "json-password": (
        "sensitive-assignment",
        bare('{{"user": "admin", "password": "{}"}}', password),
    ),
    "json-api-key": (
        "sensitive-assignment",
        bare('{{"api_key": "{}"}}', lambda r: generated(r, ALNUM, 32)),
    ),
    "json-escaped": ("sensitive-assignment", bare('{{\\"password\\": \\"{}\\"}}', password)),
    "python-literal": (
        "sensitive-assignment",
        bare('db = connect(host="db", password="{}")', password),
    ),
    "python-assign": (
        "sensitive-assignment",
        bare('API_KEY = "{}"', lambda r: generated(r, ALNUM, 32)),
    ),
    "js-object": (
        "sensitive-assignment",
        bare("const cfg = {{ apiKey: '{}' }};", lambda r: generated(r, ALNUM, 32)),
    ),
    "php-array": ("sensitive-assignment", bare("'password' => '{}',", password)),
    "cli-flag": ("sensitive-assignment", bare("mysql --password={} -u root", password)),
    "header-api-key": (
        "sensitive-assignment",
        bare("X-Api-Key: {}", lambda r: generated(r, HEX, 32)),
    ),
    "header-auth-token": (
        "sensitive-assignment",
        bare("X-Auth-Token: {}", lambda r: generated(r, B64URL, 28)),
    ),
    "query-token": (
        "sensitive-assignment",
        bare("GET /export?format=csv&access_token={}", lambda r: generated(r, ALNUM, 32)),
    ),
    "ado-connection": (
        "sensitive-assignment",
        bare("Server=db;Database=app;User Id=sa;Password={};", password),
    ),
    "markdown-bold": ("sensitive-assignment", bare("**Password**: {}", password)),
    "spring-property": ("sensitive-assignment", bare("spring.datasource.password={}", password)),
    "passphrase": ("sensitive-assignment", bare("GPG_PASSPHRASE={}", password)),
    "client-secret": (
        "sensitive-assignment",
        bare("OAUTH_CLIENT_SECRET={}", lambda r: generated(r, B64URL, 40)),
    ),
    "private-key-hex": (
        "sensitive-assignment",
        bare("PRIVATE_KEY=0x{}", lambda r: chars(r, HEX, 64)),
    ),
    "credentials-json": (
        "sensitive-assignment",
        bare('"credentials": "{}"', lambda r: generated(r, B64, 60)),
    ),
    "session-token": (
        "sensitive-assignment",
        bare('"SessionToken": "{}"', lambda r: generated(r, B64, 1000)),
    ),
    "django-secret": (
        "sensitive-assignment",
        bare(
            "SECRET_KEY = 'django-insecure-{}'",
            lambda r: generated(r, LOWER + DIGITS + "!@#$%^&*(-_=+)", 50),
        ),
    ),
    "numeric-pin": (
        "sensitive-assignment",
        bare("VAULT_PASSCODE={}", lambda r: "".join(r.sample(DIGITS, 8))),
    ),
}


def credential_cases() -> Iterator[tuple[str, str, str, str]]:
    """Every shape three times with different random bodies: (id, kind, text, secret)."""
    for name, (kind, shape) in SHAPES.items():
        for seed in range(3):
            text, secret = shape(random.Random(f"{name}/{seed}"))
            yield f"{name}-{seed}", kind, text, secret


CREDENTIALS = list(credential_cases())


MARKER = re.compile(r"\[REDACTED:[a-z-]+\]")


def covering(text: str, secret: str) -> list[SecretMatch]:
    """The matches in ``text`` that cover the whole of ``secret``."""
    start = text.index(secret)
    end = start + len(secret)
    return [m for m in find_secrets(text) if m.start <= start and m.end >= end]


class TestCredentials:
    def test_the_suite_has_at_least_100_credential_shapes(self) -> None:
        """The acceptance bar: at least 100 distinct credential shapes are exercised."""
        assert len(SHAPES) >= 100
        assert len({text for _, _, text, _ in CREDENTIALS}) == len(CREDENTIALS)

    def test_every_kind_is_exercised(self) -> None:
        """Each detector has at least one generated credential of its kind (here or in the
        command-line and provider corpus of ``tests.collect.secretshapes``)."""
        kinds = {kind for kind, _ in (*SHAPES.values(), *MORE_SHAPES.values())}
        assert kinds == set(KINDS)

    @pytest.mark.parametrize(
        ("kind", "text", "secret"), [c[1:] for c in CREDENTIALS], ids=[c[0] for c in CREDENTIALS]
    )
    def test_credential_is_found_with_its_kind(self, kind: str, text: str, secret: str) -> None:
        """A credential is covered by one match named by its most specific kind."""
        matches = covering(text, secret)
        assert [m.kind for m in matches] == [kind]
        assert contains_secret(text)

    @pytest.mark.parametrize(
        ("text", "secret"), [c[2:] for c in CREDENTIALS], ids=[c[0] for c in CREDENTIALS]
    )
    def test_redact_leaves_no_matched_value(self, text: str, secret: str) -> None:
        """After redaction the secret is gone, a marker names its kind, nothing else is left."""
        clean, count = redact(text)
        assert secret not in MARKER.sub(" ", clean)
        assert count >= 1
        assert "[REDACTED:" in clean
        assert redact(clean) == (clean, 0)


# --- look-alikes --------------------------------------------------------------------


def plain_base64(words: str) -> str:
    return base64.b64encode(words.encode()).decode()


def fake_jwt_header_only() -> str:
    body = b64url(json.dumps({"hello": "world"}).encode())
    return f"{body}.{body}.abc123def456"


def lookalike_cases() -> Iterator[tuple[str, str]]:
    """Ordinary transcript text that is not a credential: (id, text)."""
    rng = random.Random("look-alikes")
    for index in range(5):
        sha = chars(rng, HEX, 40)
        yield f"git-sha-{index}", f"commit {sha}\nAuthor: Jane <jane@example.com>"
        yield f"git-short-{index}", f"fixed in {sha[:7]} (see {sha[:12]})"
        yield f"sha256-{index}", f"sha256:{chars(rng, HEX, 64)}"
        yield f"uuid-{index}", f"session {uuid.UUID(int=rng.getrandbits(128), version=4)}"
        yield f"uuid-upper-{index}", str(uuid.UUID(int=rng.getrandbits(128))).upper()
        yield f"md5-{index}", f"md5sum: {chars(rng, HEX, 32)}  dist/app.tar.gz"
    literal = {
        "sha512-integrity": '"integrity": "sha512-' + plain_base64("x" * 60) + '"',
        "docker-digest": "image: postgres@sha256:" + "ab12" * 16,
        "session-id-path": "/home/u/.codex/sessions/"
        "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        "ssh-key-path": "ssh -i ~/.ssh/id_ed25519 deploy@host",
        "aws-credentials-path": "credentials live in ~/.aws/credentials",
        "windows-secrets-path": r"C:\Users\dev\AppData\Roaming\secrets.json",
        "source-path": "src/auth/token_store.py:42: def refresh_token(self):",
        "fixture-path": "tests/fixtures/password_reset.html",
        "base64-words": plain_base64("the quick brown fox jumps over the lazy dog"),
        "base64-json": plain_base64(json.dumps({"name": "dreamd", "version": "0.1.0"})),
        "data-uri": "data:image/png;base64," + plain_base64("P" * 90),
        "prose-token-budget": "the token budget is 5000 tokens per run",
        "prose-token-limit": "We hit the token limit again; tokens are expensive.",
        "prose-password": "Use a strong password and never share it.",
        "prose-password-colon": "Reset your password: click the link in the email.",
        "prose-secret": "The secret to good tests is real parts, not mocks.",
        "prose-api-keys": "API keys are stored in the vault, never in the repo.",
        "prose-bearer": "Bearer tokens expire after an hour.",
        "prose-first-pass": "First pass: parse the file. Second pass: resolve names.",
        "go-test-pass": "--- PASS: TestLoadSessionState_WithEndedAt (0.07s)",
        "go-test-pass-digits": "--- PASS: TestParseV2Header (0.00s)",
        "auth-required": "auth: required",
        "auth-mode": "auth_mode: oauth2",
        "placeholder-angle": "API_KEY=<API_KEY>",
        "placeholder-your-token": "GITHUB_TOKEN=<your-token>",
        "placeholder-dollar-brace": "TOKEN=${TOKEN}",
        "placeholder-dollar": "AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
        "placeholder-stars": 'password: "********"',
        "placeholder-x": "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "placeholder-ellipsis": "OPENAI_API_KEY=sk-...",
        "placeholder-your-api-key": 'api_key: "YOUR_API_KEY"',
        "placeholder-your-key-here": "ANTHROPIC_API_KEY=your-api-key-here",
        "placeholder-changeme": "POSTGRES_PASSWORD=changeme",
        "placeholder-empty": 'SECRET_KEY=""',
        "placeholder-empty-yaml": "token:",
        "placeholder-null": "password: null",
        "placeholder-none": "password = None",
        "placeholder-actions": "token: ${{ secrets.GITHUB_TOKEN }}",
        "placeholder-jinja": "password: {{ vault_db_password }}",
        "placeholder-redacted": "password: [REDACTED]",
        "placeholder-anthropic": "sk-ant-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "placeholder-ghp": "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "placeholder-ghp-words": "GITHUB_TOKEN=ghp_your_token_here",
        "placeholder-prefix-stub": "const apiKey = 'sk-ant-' + 'a'.repeat(95);",
        "placeholder-test-key": "CODEMIE_API_KEY: 'test-key'",
        "aws-example-key-id": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "aws-example-secret": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "type-annotation": "password: str",
        "type-optional": "api_key: Optional[str] = None",
        "type-ts": "  token: string;",
        "env-lookup": 'token = os.environ["GITHUB_TOKEN"]',
        "getenv-call": "password = os.getenv('DB_PASSWORD')",
        "getpass-call": "password = getpass.getpass()",
        "settings-ref": "secret = settings.SECRET_KEY",
        "process-env": "const apiKey = process.env.OPENAI_API_KEY;",
        "kwarg-same-name": "client = Client(token=token, password=password)",
        "kwarg-variable": "connect(password=db_password, api_key=openai_api_key)",
        "kwarg-attribute": "login(password=args.password)",
        "lexer-token": "token = next(tokens)",
        "lexer-type": "token: Token",
        "pygments-token": 'Token.String.Symbol: "noinherit",',
        "sentinel-token": '_DEFAULT_TOKEN = "_sa_default"',
        "constant-token": 'REVISION_SCRIPT_TOKEN = "REVISION_SCRIPT_FILENAME"',
        "identity-token": "update_execution_options(identity_token=shard_id)",
        "env-name-alone": "OPENAI_API_KEY",
        "env-name-export": "export ANTHROPIC_API_KEY",
        "env-name-prose": "set GITHUB_TOKEN in your shell before running gh",
        "max-tokens": "max_tokens=4096",
        "max-tokens-json": '{"model": "claude", "max_tokens": 4096}',
        "token-count": "token_count: 15230",
        "input-tokens": '"input_tokens": 12000, "output_tokens": 800',
        "secret-name": "secretName: db-creds-v2",
        "password-file": "password_file: /run/secrets/db_password",
        "api-key-env": "api_key_env: OPENAI_API_KEY",
        "token-url": "token_url: https://oauth2.googleapis.com/token",
        "tokenizer": "tokenizer: cl100k_base",
        "token-version": "token: v1.2.3",
        "semver": "version: 1.2.3",
        "semver-rc": "released v2.10.0-rc.1 today",
        "caret-range": '"@aws-sdk/credential-providers": "^3.948.0",',
        "private-key-path": "private_key: ~/.ssh/id_rsa",
        "credentials-file": 'credentials: "service-account.json"',
        "url-plain": "https://github.com/org/repo/pull/42",
        "url-git-ssh": "git@github.com:org/repo.git",
        "url-ssh-user": "ssh://git@example.com:2222/repo.git",
        "url-user-only": "https://user@host.example.com/path",
        "url-port": "http://localhost:8080/api?token_type=bearer",
        "url-no-user": "postgres://localhost:5432/db",
        "url-env-password": "postgres://user:${DB_PASSWORD}@db/app",
        "url-placeholder-password": "postgresql://user:password@localhost/db",
        "url-angle-password": "mysql://root:<password>@localhost/shop",
        "url-colon-in-path": "https://example.com/a:b@c",
        "email": "john.doe@example.com",
        "email-plus": "user+tag@sub.example.co.uk",
        "mailto": "mailto:support@example.com",
        "jwt-two-parts": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0",
        "jwt-not-json": "eyJhbGciOiJIUzI1NiJ9.notbase64json.sig123",
        "jwt-random-parts": "eyJ" + "q" * 30 + ".eyJ" + "z" * 30 + "." + "k" * 20,
        "jwt-header-without-alg": fake_jwt_header_only(),
        "pem-public": pem(rng, "PUBLIC KEY"),
        "pem-certificate": pem(rng, "CERTIFICATE"),
        "pem-header-in-prose": "it must start with -----BEGIN OPENSSH PRIVATE KEY----- exactly",
        "stripe-publishable": "pk_live_" + generated(rng, ALNUM, 24),
        "arn-managed-policy": "attach arn:aws:iam::aws:policy/ReadOnlyAccess to the role",
        "arn-placeholder": "arn:${AWS::Partition}:iam::${AWS::AccountId}:role/x",
        "arn-prose": "an ARN looks like arn:partition:service:region:account-id:resource",
        "css-spinner": '<div class="sk-spinner-double-bounce1"></div>',
        "sk-learn": "pip install scikit-learn (imported as sklearn, not sk-learn)",
        "slack-package": "import { WebClient } from '@slack/web-api'",
        "xoxo": "thanks, xoxo Jane",
        "hf-function": "from huggingface_hub import hf_hub_download",
        "npm-config": "npm_config_cache=/tmp/npm npm_package_version=1.0.0",
        "prefix-alone": "tokens start with ghp_, glpat- or AIza",
        "hex-color": "color: #ff8800; background: #0a0a0a",
        "ip-and-mac": "10.0.0.12 aa:bb:cc:dd:ee:ff",
        "timestamp": "2026-05-11T11:26:55.123Z",
        "k8s-secret-ref": "valueFrom:\n  secretKeyRef:\n    name: db\n    key: password",
        "compose-image": "image: postgres:16-alpine",
        "password-hash-call": "password_hash = bcrypt.hashpw(pw, bcrypt.gensalt())",
        "comparison": 'if password == "":',
        "japanese-prose": "パスワードはボールトに保存してください。トークンの予算は5000です。",
    }
    yield from literal.items()


LOOKALIKES = list(lookalike_cases())


class TestLookalikes:
    def test_the_suite_has_at_least_100_lookalikes(self) -> None:
        """The acceptance bar: at least 100 look-alikes that are not secrets."""
        assert len(LOOKALIKES) >= 100

    @pytest.mark.parametrize("text", [t for _, t in LOOKALIKES], ids=[i for i, _ in LOOKALIKES])
    def test_lookalike_is_not_a_secret(self, text: str) -> None:
        """Hashes, UUIDs, paths, placeholders, prose and references are left alone."""
        assert find_secrets(text) == []
        assert not contains_secret(text)
        assert redact(text) == (text, 0)


# --- properties ---------------------------------------------------------------------

#: Prose a transcript is made of, including the words that name secrets.
PROSE = (
    "the",
    "a",
    "we",
    "decided",
    "to",
    "use",
    "token",
    "tokens",
    "budget",
    "password",
    "password:",
    "secret",
    "secret:",
    "key",
    "key:",
    "api",
    "api_key",
    "=",
    ":",
    "Bearer",
    "Authorization:",
    "never",
    "always",
    "4096",
    "v1.2.3",
    "<token>",
    "${TOKEN}",
    "***",
    "--- PASS:",
    "auth:",
    "because",
    "it",
    "fails",
    "https://example.com/docs",
    "user@example.com",
    "sk-",
    "ghp_",
    "AKIA",
    "eyJ",
    "-----BEGIN",
    "arn:",
    "OPENAI_API_KEY",
    "max_tokens=4096",
    "\n",
    "(",
    ")",
    ".",
    ",",
    "é",
    "トークン",
    "2026-05-01",
    "ok",
    "token=",
    "password=",
)
#: Identifiers a transcript is full of, with no word that names a secret.
IDENTIFIERS = st.one_of(
    st.uuids().map(str),
    st.binary(min_size=20, max_size=32).map(lambda b: b.hex()),
    st.lists(
        st.sampled_from(["src", "home", "u", "auth", ".ssh", "id_rsa", "x.py"]),
        min_size=1,
        max_size=5,
    ).map(lambda p: "/" + "/".join(p)),
    st.text(alphabet=LOWER + " ", min_size=3, max_size=40).map(plain_base64),
)
SHAPE_NAMES = sorted(SHAPES)


def prose(words: list[str]) -> str:
    return " ".join(words)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(SHAPE_NAMES),
    seed=st.integers(min_value=0, max_value=2**32),
    before=st.lists(st.sampled_from(PROSE), max_size=12),
    after=st.lists(st.sampled_from(PROSE), max_size=12),
)
def test_a_credential_embedded_in_prose_is_always_found(
    name: str, seed: int, before: list[str], after: list[str]
) -> None:
    """Whatever prose surrounds it, a credential is covered by a match and redacted away."""
    text, secret = SHAPES[name][1](random.Random(seed))
    document = f"{prose(before)} {text} {prose(after)}"
    assert covering(document, secret)
    clean, _ = redact(document)
    assert secret not in MARKER.sub(" ", clean) or len(secret) < 4  # "IA" may be in "AKIA"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PROSE), max_size=40))
def test_prose_about_secrets_holds_none(words: list[str]) -> None:
    """Words like token, password, key, Bearer and placeholders never make a secret."""
    assert find_secrets(prose(words)) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(IDENTIFIERS, st.sampled_from(PROSE[:6])), max_size=20))
def test_identifiers_in_prose_are_not_secrets(parts: list[str]) -> None:
    """UUIDs, hex digests, paths and base64 of plain text are not secrets."""
    assert find_secrets(prose(parts)) == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_redacted_text_holds_no_secret(text: str) -> None:
    """Any text, once redacted, holds no secret and redacts to itself."""
    clean, _ = redact(text)
    assert not contains_secret(clean)


# --- matches ------------------------------------------------------------------------


class TestMatches:
    def test_a_match_carries_kind_span_and_fingerprint_only(self) -> None:
        """A match never holds the value: kind, span and a keyed fingerprint."""
        text = f"token {TOKEN}"
        (match,) = find_secrets(text)
        assert (match.kind, match.start, match.end) == ("github-token", 6, len(text))
        assert "ghp_" not in repr(match)
        assert set(SecretMatch.__slots__) == {"kind", "start", "end", "fingerprint"}

    def test_fingerprints_tell_values_apart(self) -> None:
        """The same value gives the same fingerprint; a different value a different one."""
        a = TOKEN
        b = "ghp_" + generated(random.Random("other"), ALNUM, 36)
        (first, second, third) = find_secrets(f"{a} {a} {b}")
        assert first.fingerprint == second.fingerprint != third.fingerprint

    def test_overlapping_detectors_merge_under_the_specific_kind(self) -> None:
        """``GITHUB_TOKEN=ghp_…`` is one match named github-token, not two."""
        text = f"GITHUB_TOKEN={TOKEN}"
        assert [m.kind for m in find_secrets(text)] == ["github-token"]

    def test_several_secrets_are_found_in_order(self) -> None:
        """Matches come in text order and redaction counts each."""
        text = f"AKIA{'Q7W3' * 4} then password: hunter2024 then {jwt(random.Random(1))}"
        assert [m.kind for m in find_secrets(text)] == [
            "aws-access-key",
            "sensitive-assignment",
            "jwt",
        ]
        assert redact(text)[1] == 3

    def test_a_long_value_is_covered_to_its_end(self) -> None:
        """A value longer than the part that is judged is still redacted whole."""
        value = generated(random.Random("long"), B64URL, 10_000)
        clean, count = redact(f"BLOB_TOKEN={value} done")
        assert (clean, count) == ("BLOB_TOKEN=[REDACTED:sensitive-assignment] done", 1)

    def test_assignment_redaction_keeps_the_key(self) -> None:
        """Only the value is replaced, so the redacted line still says what was there."""
        assert redact("DB_PASSWORD=hunter2024 psql") == (
            "DB_PASSWORD=[REDACTED:sensitive-assignment] psql",
            1,
        )
        assert redact("postgres://app:s3cretPw@db/app")[0] == (
            "postgres://app:[REDACTED:url-credentials]@db/app"
        )

    @pytest.mark.parametrize(
        ("key", "strength"),
        [
            ("DB_PASSWORD", "strong"),
            ("PGPASSWORD", "strong"),
            ("X-Api-Key", "strong"),
            ("xApiKey", "strong"),
            ("AccountKey", "strong"),
            ("client_secret", "strong"),
            ("SMTP_PASS", "strong"),
            ("settings.SECRET_KEY", "strong"),
            ("token", "weak"),
            ("authToken", "weak"),
            ("BASIC_AUTH", "weak"),
            ("PASS", ""),
            ("auth_mode", ""),
            ("token_count", ""),
            ("max_tokens", ""),
            ("secret_name", ""),
            ("password_file", ""),
            ("api_key_env", ""),
            ("Token.String.Symbol", ""),
            ("key", ""),
            ("primary_key", ""),
            ("tokenizer", ""),
            ("dropped_secrets", ""),
            ("api_keys", ""),
        ],
    )
    def test_key_strength(self, key: str, strength: str) -> None:
        """Key names are graded strong, weak (token, auth) or not sensitive."""
        assert key_strength(key) == strength

    def test_weak_keys_need_generated_values(self) -> None:
        """``token: upgrades`` is a word; ``token: a1b2c3d4e5`` is a credential."""
        assert not contains_secret('"upgrade_token": "upgrades"')
        assert contains_secret('"upgrade_token": "a1b2c3d4e5f6"')

    def test_strong_keys_take_word_literals(self) -> None:
        """A word literal under a password key is still a password."""
        assert contains_secret('POSTGRES_PASSWORD="correcthorse"')
        assert contains_secret("DB_PASS=hunter2")


# --- memory items -------------------------------------------------------------------

SOURCE = "source:claude-code:laptop:0a1f-session"
MESSAGE = "claude-code:laptop:0a1f-session"
TOKEN = "ghp_" + generated(random.Random("token"), ALNUM, 36)
JWT = jwt(random.Random("item"))


def item(**changes: object) -> MemoryItem:
    fields: dict[str, object] = {
        "type": "project",
        "category": "Decision",
        "name": "deploy-with-ci-token",
        "description": "Deploys go through the CI pipeline.",
        "body": "We deploy only through CI; nobody pushes images by hand.",
        "confidence": 0.9,
        "source": SOURCE,
        "collected": date(2026, 5, 1),
        "quotes": (
            Quote(f"{MESSAGE}:4", "deploy only through CI"),
            Quote(f"{MESSAGE}:5", "nobody pushes images by hand"),
        ),
        "project": "/work/app",
    }
    fields.update(changes)
    return MemoryItem(**fields)  # type: ignore[arg-type]


class TestFilterItem:
    def test_a_clean_item_passes_unchanged(self) -> None:
        """An item with no secret is returned as it is, with nothing dropped."""
        clean = item()
        assert filter_item(clean) == FilterResult(clean, 0)

    @pytest.mark.parametrize("field", ["name", "description", "body", "category"])
    def test_a_secret_in_the_memory_itself_drops_the_item(self, field: str) -> None:
        """A secret in name, description, body or category drops the whole item."""
        result = filter_item(item(**{field: f"use {TOKEN} for pushes"}))
        assert result == FilterResult(None, 1)

    def test_every_secret_value_is_counted(self) -> None:
        """``dropped`` counts each credential-shaped value, across fields."""
        result = filter_item(
            item(body=f"token {TOKEN} and {JWT}", description="password: hunter2024")
        )
        assert result == (None, 3)

    def test_a_secret_in_a_quote_drops_only_that_quote(self) -> None:
        """The quote holding a secret is dropped; the item and its other quote stay."""
        leaky = Quote(f"{MESSAGE}:6", f"export GITHUB_TOKEN={TOKEN}")
        original = item(quotes=(*item().quotes[:1], leaky))
        kept, dropped = filter_item(original)
        assert dropped == 1
        assert kept is not None
        assert kept.quotes == item().quotes[:1]
        assert (kept.name, kept.body, kept.project) == (
            original.name,
            original.body,
            original.project,
        )

    def test_an_item_whose_every_quote_leaks_is_dropped(self) -> None:
        """With every quote dropped nothing verbatim is left: the item goes too."""
        quotes = (Quote(f"{MESSAGE}:1", f"key {TOKEN}"), Quote(f"{MESSAGE}:2", JWT))
        assert filter_item(item(quotes=quotes)) == (None, 2)

    def test_an_item_without_quotes_is_kept(self) -> None:
        """An item that never had quotes is not dropped for having none."""
        bare = item(quotes=())
        assert filter_item(bare) == (bare, 0)

    def test_a_secret_in_project_clears_that_field(self) -> None:
        """The optional project field is cleared; the memory is kept."""
        kept, dropped = filter_item(item(project="https://ci:s3cretPw9@git.example/app"))
        assert dropped == 1
        assert kept is not None
        assert kept.project is None
        assert kept.body == item().body

    def test_no_kept_item_holds_a_secret(self) -> None:
        """Whatever survives the filter holds no credential in any field or quote."""
        leaky = item(
            project=f"app {TOKEN}",
            quotes=(Quote(f"{MESSAGE}:1", "plain"), Quote(f"{MESSAGE}:2", f"pw {JWT}")),
        )
        kept, _ = filter_item(leaky)
        assert kept is not None
        assert TOKEN not in repr(kept)
        assert JWT not in repr(kept)
        assert scan_item(kept).total == 0

    def test_scan_names_fields_and_kinds(self) -> None:
        """``scan_item`` says where the secrets are and of which kinds."""
        leaky = item(
            body=f"use {TOKEN}",
            quotes=(Quote(f"{MESSAGE}:1", "fine"), Quote(f"{MESSAGE}:2", f"a {JWT} b {TOKEN}")),
        )
        findings = scan_item(leaky)
        assert sorted(findings.by_field) == ["body", "quotes[1]"]
        assert findings.kinds == {"github-token": 2, "jwt": 1}
        assert findings.total == 3


# --- logs ---------------------------------------------------------------------------


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """structlog wired with the redaction processor before a JSON renderer, into a buffer."""
    stream = io.StringIO()
    structlog.configure(
        processors=[redact_log_event, structlog.processors.JSONRenderer()],
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )
    yield stream
    structlog.reset_defaults()


class TestLogProcessor:
    def test_nested_values_are_redacted(self) -> None:
        """Strings at any depth of dicts, lists, tuples and sets are redacted."""
        event = {
            "event": f"pushed with {TOKEN}",
            "request": {"headers": [("Authorization", f"Bearer {JWT}")], "tags": {TOKEN}},
            "count": 3,
        }
        clean = redact_log_event(None, "info", event)
        text = repr(clean)
        assert TOKEN not in text
        assert JWT not in text
        assert clean["count"] == 3
        assert clean["request"]["headers"] == [("Authorization", "Bearer [REDACTED:jwt]")]
        assert clean["request"]["tags"] == {"[REDACTED:github-token]"}

    def test_values_under_sensitive_keys_are_replaced_whole(self) -> None:
        """``password="hunter2"`` is a secret by its key even though the value alone is not."""
        event: dict[str, Any]
        event = {"event": "login", "password": "hunter2", "config": {"api_key": "abc", "pin": 1}}
        event["config"]["db_passcode"] = 918273
        clean = redact_log_event(None, "info", event)
        assert clean["password"] == "[REDACTED:sensitive-assignment]"
        assert clean["config"] == {
            "api_key": "[REDACTED:sensitive-assignment]",
            "pin": 1,
            "db_passcode": "[REDACTED:sensitive-assignment]",
        }
        assert clean["event"] == "login"

    def test_descriptive_keys_are_kept(self) -> None:
        """``token_count`` and ``secret_name`` describe secrets; their values stay."""
        event = {
            "event": "x",
            "token_count": "1500",
            "secret_name": "prod/db",
            "dropped_secrets": 3,
            "token": "",
            "auth": True,
        }
        assert redact_log_event(None, "info", event) == event

    def test_deep_nesting_is_cut_not_passed_through(self) -> None:
        """Beyond the depth limit a container is replaced, never logged unredacted."""
        deep: object = TOKEN
        for _ in range(40):
            deep = [deep]
        clean = redact_log_event(None, "info", {"event": "x", "deep": deep})
        assert TOKEN not in repr(clean)

    def test_no_credential_reaches_a_log_line(self, log_stream: io.StringIO) -> None:
        """Through a real structlog pipeline, the rendered JSON line holds no credential."""
        log = structlog.get_logger()
        log.info(
            "collect.window",
            note=f"user pasted DATABASE_URL=postgres://app:s3cretPw9@db/app and {TOKEN}",
            items=[{"quote": JWT}],
            password="hunter2",
        )
        line = json.loads(log_stream.getvalue())
        rendered = log_stream.getvalue()
        assert "s3cretPw9" not in rendered
        assert TOKEN not in rendered
        assert JWT not in rendered
        assert "hunter2" not in rendered
        assert line["items"] == [{"quote": "[REDACTED:jwt]"}]


# --- real transcripts ---------------------------------------------------------------

FIXTURE_TOOLS = ("claude-code", "codex", "pi", "gemini", "aider")


@pytest.mark.fixtures
def test_real_transcripts_hold_no_false_positives(shared_transcripts: Path) -> None:
    """The cleaned conversations of the shared real transcripts flag nothing.

    These public sessions were scrubbed by their publishers; any hit here is a
    false positive on ordinary coding conversation.
    """
    texts = []
    for tool in FIXTURE_TOOLS:
        reader = READERS[tool]
        for ref in reader.discover(shared_transcripts / tool):
            conversation = reader.read(ref) if isinstance(ref, SessionRef) else ref
            if isinstance(conversation, Conversation):
                texts += [message.text for message in conversation.messages]
    assert len(texts) > 500
    flagged = [(m.kind, text[m.start - 30 : m.end]) for text in texts for m in find_secrets(text)]
    assert flagged == []
