"""A corpus of credential shapes written as rules a person gives an agent (issue 15 item 9).

Every shape builds (sentence, secret) from a random source: the sentence is a
standing instruction the heuristic collector plants ("Always deploy with
``sshpass -p '…' ssh prod``."), the secret the value that must never be
stored. Bodies are random in each provider's published alphabet and length;
none is a real key. ``LOOKALIKES`` are the harmless neighbours of these
shapes (a port after ``ssh -p``, ``--password-stdin``, a commit SHA): they
must still be planted.

Shared by the filter's unit tests and the end-to-end corpus test.
"""

# The rule tables read one rule a line (the patterns are long).
# ruff: noqa: E501

from __future__ import annotations

import random
import string
from collections.abc import Callable

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"

Make = Callable[[random.Random], str]
Shape = Callable[[random.Random], tuple[str, str]]


def chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """Random characters holding at least one upper, lower and digit, as real keys do."""
    body = [*chars(rng, alphabet, n - 3), rng.choice(UPPER), rng.choice(LOWER), rng.choice(DIGITS)]
    rng.shuffle(body)
    return "".join(body)


def hexes(rng: random.Random, n: int) -> str:
    """Lower-case hex holding at least one letter and one digit."""
    body = [*chars(rng, HEX, n - 2), rng.choice("abcdef"), rng.choice(DIGITS)]
    rng.shuffle(body)
    return "".join(body)


def password(rng: random.Random) -> str:
    """A password a person types: letters, digits, a sign; never a plain word."""
    return mixed(rng, ALNUM + "!%^*+", rng.randint(9, 16))


def rule(template: str, make: Make) -> Shape:
    """A shape: ``make(rng)`` placed into ``template`` at ``{}``."""

    def shape(rng: random.Random) -> tuple[str, str]:
        secret = make(rng)
        return template.format(secret), secret

    return shape


def pre(prefix: str, body: Callable[[random.Random], str]) -> Make:
    return lambda rng: prefix + body(rng)


def b62(n: int) -> Callable[[random.Random], str]:
    return lambda rng: mixed(rng, ALNUM, n)


def hx(n: int) -> Callable[[random.Random], str]:
    return lambda rng: hexes(rng, n)


def b64u(n: int) -> Callable[[random.Random], str]:
    return lambda rng: mixed(rng, B64URL, n)


def uuid_hex(rng: random.Random) -> str:
    h = hexes(rng, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def age_key(rng: random.Random) -> str:
    return "AGE-SECRET-KEY-1" + chars(rng, BECH32, 58)


def sentry_dsn(rng: random.Random) -> str:
    return f"https://{hexes(rng, 32)}@o{rng.randint(10**5, 10**7)}.ingest.sentry.io/{rng.randint(10**5, 10**7)}"


def discord_webhook(rng: random.Random) -> str:
    return f"https://discord.com/api/webhooks/{chars(rng, DIGITS, 18)}/{mixed(rng, B64URL, 68)}"


def onepassword_secret_key(rng: random.Random) -> str:
    parts = [chars(rng, UPPER + DIGITS, n) for n in (6, 6, 5, 5, 5, 5)]
    return "A3-" + "-".join(parts)


def azure_client_secret(rng: random.Random) -> str:
    return f"{mixed(rng, ALNUM, 3)}{rng.choice(DIGITS)}Q~{mixed(rng, ALNUM + '_~.-', 34)}"


def terraform(rng: random.Random) -> str:
    return f"{mixed(rng, ALNUM, 14)}.atlasv1.{mixed(rng, B64URL, 67)}"


#: kind, rule template, secret maker.
_ROWS: dict[str, tuple[str, str, Make]] = {
    # passwords given as command flags
    "sshpass-quoted": ("command-password", "Always deploy with `sshpass -p '{}' ssh prod` from now on.", password),
    "sshpass-bare": ("command-password", "From now on run sshpass -p {} ssh deploy@prod for releases.", password),
    "mysql-attached": ("command-password", "Always use `mysql -u app -h db.internal -p{} shop` for checks.", password),
    "mysql-quoted": ("command-password", "Always use mysqldump -uroot -p'{}' shop > dump.sql for backups.", password),
    "mysql-long": ("sensitive-assignment", "Always use mysql --user=app --password={} shop for checks.", password),
    "docker-login-p": ("command-password", "Always log in with `docker login -u ci -p {} registry.example.com`.", password),
    "docker-login-long": ("command-password", "Always run docker login --username ci --password {} ghcr.io first.", password),
    "podman-login": ("command-password", "Always use podman login -u ci -p '{}' quay.io before pushing.", password),
    "redis-cli": ("command-password", "Always check the cache with redis-cli -h cache -a {} ping.", password),
    "curl-user": ("command-password", "Always call the API with curl -u admin:{} https://api.internal/v1.", password),
    "curl-user-quoted": ("command-password", "Always fetch with `curl --user 'deploy:{}' https://nexus.internal`.", password),
    "pgpassword-env": ("sensitive-assignment", "Always run PGPASSWORD={} psql -h db -U app before migrating.", password),
    "mysql-pwd-env": ("sensitive-assignment", "Always export MYSQL_PWD='{}' before the backup job.", password),
    "sshpass-env": ("sensitive-assignment", "Always set SSHPASS={} and use sshpass -e for the jump host.", password),
    "mongosh": ("command-password", "Always use mongosh --host db -u admin -p {} admin for checks.", password),
    "sqlcmd": ("command-password", "Always use sqlcmd -S db -U sa -P '{}' -Q 'select 1' for checks.", password),
    "ldapsearch": ("command-password", "Always use ldapsearch -x -D cn=admin -w {} -b dc=corp for lookups.", password),
    "htpasswd": ("command-password", "Always create the user with htpasswd -bc .htpasswd admin {} first.", password),
    "sudo-echo": ("command-password", "Always install with echo '{}' | sudo -S apt-get install -y nginx.", password),
    "echo-docker-stdin": ("command-password", "Always log in with echo {} | docker login --password-stdin -u ci.", password),
    "openssl-passin": ("command-password", "Always export with openssl pkcs12 -in cert.p12 -passin pass:{} -nodes.", password),
    "keytool": ("command-password", "Always import with keytool -importcert -keystore app.jks -storepass {} now.", password),
    "smbclient": ("command-password", "Always use smbclient //nas/share -U backup%{} for the share.", password),
    "zip-password": ("command-password", "Always use zip -P '{}' export.zip data.csv for exports.", password),
    "long-flag-db-password": ("command-password", "Always start the app with --db-password {} in staging.", password),
    "long-flag-api-key": ("command-password", "Always call the CLI with --api-key '{}' from now on.", password),
    "gh-secret-body": ("command-password", "Always set it with gh secret set DEPLOY_KEY --body '{}' first.", password),
    "rabbitmqctl": ("command-password", "Always create it with rabbitmqctl add_user deployer {} from now on.", password),
    "url-credentials": ("url-credentials", "Always use postgres://app:{}@db.internal:5432/app for the tests.", password),
    "redis-url": ("url-credentials", "Always use redis://:{}@cache.internal:6379/0 for the cache.", password),
    "api-key-hex": ("stated-secret", "Always use the API key {} for the staging account.", hx(32)),
    "access-token-stated": ("stated-secret", "Remember that the access token is {} for the bot.", b62(40)),
    "password-stated": ("stated-secret", "Remember that the staging password is '{}' from now on.", password),
    # credential shapes
    "vault-hvs": ("vault-token", "Always log in to Vault with VAULT_TOKEN={} from now on.", pre("hvs.", b64u(91))),
    "vault-hvb": ("vault-token", "Always use the batch token {} for CI jobs.", pre("hvb.", b64u(130))),
    "vault-legacy": ("vault-token", "Always run vault login {} before reading secrets.", pre("s.", b62(24))),
    "twilio-sid": ("twilio-key", "Always send SMS from account {} from now on.", pre("AC", hx(32))),
    "twilio-key": ("twilio-key", "Always use the Twilio key {} for alerts.", pre("SK", hx(32))),
    "groq": ("groq-key", "Always set GROQ_API_KEY={} for the eval runs.", pre("gsk_", b62(52))),
    "xai": ("xai-key", "Always use {} for Grok calls from now on.", pre("xai-", b62(80))),
    "openrouter": ("openrouter-key", "Always use {} for model routing from now on.", pre("sk-or-v1-", hx(64))),
    "deepseek": ("deepseek-key", "Always call DeepSeek with {} in the benchmark.", pre("sk-", hx(32))),
    "langfuse": ("langfuse-key", "Always use the Langfuse key {} for tracing from now on.", pre("sk-lf-", uuid_hex)),
    "mailgun-legacy": ("mailgun-key", "Always send mail with the Mailgun key {} from now on.", pre("key-", hx(32))),
    "mailgun-new": ("mailgun-key", "Always send mail with {} as the Mailgun key.", lambda r: f"{hexes(r, 32)}-{hexes(r, 8)}-{hexes(r, 8)}"),
    "mailchimp": ("mailchimp-key", "Always sync the list with {} from now on.", lambda r: f"{hexes(r, 32)}-us{r.randint(1, 21)}"),
    "sentry-dsn": ("sentry-dsn", "Always report errors to {} from now on.", sentry_dsn),
    "sentry-token": ("sentry-token", "Always upload sourcemaps with {} from now on.", pre("sntryu_", hx(64))),
    "age-key": ("age-secret-key", "Always use {} to decrypt the backups from now on.", age_key),
    "perplexity": ("perplexity-key", "Always use {} for search from now on.", pre("pplx-", b62(48))),
    "replicate": ("replicate-token", "Always run models with {} from now on.", pre("r8_", b62(37))),
    "tavily": ("tavily-key", "Always use {} for web search from now on.", pre("tvly-dev-", b62(32))),
    "langsmith": ("langsmith-key", "Always use {} for tracing from now on.", lambda r: f"lsv2_pt_{hexes(r, 32)}_{hexes(r, 10)}"),
    "pinecone": ("pinecone-key", "Always use {} for the vector index from now on.", pre("pcsk_", b62(60))),
    "elevenlabs": ("elevenlabs-key", "Always use {} for the demo voice from now on.", pre("sk_", hx(48))),
    "linear": ("linear-key", "Always use {} for filing issues from now on.", pre("lin_api_", b62(40))),
    "notion": ("notion-token", "Always sync pages with {} from now on.", pre("ntn_", b62(46))),
    "doppler": ("doppler-token", "Always fetch config with {} from now on.", pre("dp.st.", b62(43))),
    "postman": ("postman-key", "Always run the collection with {} from now on.", lambda r: f"PMAK-{hexes(r, 24)}-{hexes(r, 34)}"),
    "pulumi": ("pulumi-token", "Always deploy stacks with {} from now on.", pre("pul-", hx(40))),
    "databricks": ("databricks-token", "Always use {} for the warehouse from now on.", pre("dapi", hx(32))),
    "terraform": ("terraform-token", "Always plan with the Terraform token {} from now on.", terraform),
    "atlassian": ("atlassian-token", "Always update Jira with {} from now on.", pre("ATATT3", b64u(180))),
    "bitbucket": ("bitbucket-token", "Always clone with the app password {} from now on.", pre("ATBB", b62(32))),
    "docker-hub": ("docker-hub-token", "Always push images with {} from now on.", pre("dckr_pat_", b64u(27))),
    "grafana-sa": ("grafana-token", "Always push dashboards with {} from now on.", lambda r: f"glsa_{mixed(r, ALNUM, 32)}_{hexes(r, 8)}"),
    "grafana-cloud": ("grafana-token", "Always ship logs with {} from now on.", pre("glc_", lambda r: mixed(r, B64, 60))),
    "flyio": ("flyio-token", "Always deploy to Fly with {} from now on.", pre("fo1_", b64u(43))),
    "netlify": ("netlify-token", "Always deploy previews with {} from now on.", pre("nfp_", b62(40))),
    "supabase": ("supabase-key", "Always migrate with {} from now on.", pre("sbp_", hx(40))),
    "heroku": ("heroku-key", "Always release with {} from now on.", pre("HRKU-AA", b64u(58))),
    "square": ("square-token", "Always use {} for card payments from now on.", pre("sq0atp-", b64u(22))),
    "newrelic": ("newrelic-key", "Always use {} for metrics queries from now on.", pre("NRAK-", lambda r: mixed(r, UPPER + DIGITS, 27))),
    "brevo": ("brevo-key", "Always send newsletters with {} from now on.", lambda r: f"xkeysib-{hexes(r, 64)}-{mixed(r, ALNUM, 16)}"),
    "discord-webhook": ("discord-webhook", "Always use {} for alerts from now on.", discord_webhook),
    "google-oauth-token": ("google-oauth-token", "Always call Drive with {} from now on.", pre("ya29.", b64u(120))),
    "onepassword-token": ("onepassword-token", "Always read vault items with {} from now on.", pre("ops_eyJ", b64u(200))),
    "onepassword-secret-key": ("onepassword-secret-key", "Always use {} to restore the account from now on.", onepassword_secret_key),
    "cloudflare-origin": ("cloudflare-origin-ca", "Always use {} for origin certificates from now on.", lambda r: f"v1.0-{hexes(r, 24)}-{hexes(r, 146)}"),
    "azure-client-secret": ("azure-client-secret", "Always use {} as the app secret from now on.", azure_client_secret),
    "alibaba": ("alibaba-key", "Always upload to OSS with {} from now on.", pre("LTAI", b62(20))),
    "tencent": ("tencent-key", "Always call COS with {} from now on.", pre("AKID", b62(32))),
    "aws-bedrock": ("aws-bedrock-key", "Always call Bedrock with {} from now on.", pre("ABSK", lambda r: mixed(r, B64, 120))),
    "rubygems": ("rubygems-token", "Always use {} to publish gems from now on.", pre("rubygems_", hx(48))),
    "nuget": ("nuget-key", "Always push packages with {} from now on.", pre("oy2", lambda r: mixed(r, LOWER + DIGITS, 43).lower())),
    "artifactory": ("artifactory-key", "Always pull artifacts with {} from now on.", pre("AKCp", b62(69))),
    "sourcegraph": ("sourcegraph-token", "Always use {} for code search from now on.", pre("sgp_", hx(40))),
    "prefect": ("prefect-key", "Always run flows with {} from now on.", pre("pnu_", b62(36))),
    "dynatrace": ("dynatrace-token", "Always push metrics with {} from now on.", lambda r: f"dt0c01.{mixed(r, UPPER + DIGITS, 24).upper()}.{mixed(r, UPPER + DIGITS, 64).upper()}"),
    "planetscale": ("planetscale-token", "Always use {} for database branches from now on.", pre("pscale_tkn_", b64u(43))),
    "duffel": ("duffel-token", "Always use {} for flight bookings from now on.", pre("duffel_test_", b64u(43))),
    "shippo": ("shippo-token", "Always print labels with {} from now on.", pre("shippo_live_", hx(40))),
    "render": ("render-key", "Always deploy services with {} from now on.", pre("rnd_", b62(32))),
    "neon": ("neon-key", "Always create branches with {} from now on.", pre("napi_", lambda r: mixed(r, LOWER + DIGITS, 64).lower())),
    "resend": ("resend-key", "Always send receipts with {} from now on.", lambda r: f"re_{mixed(r, ALNUM, 8)}_{mixed(r, ALNUM, 24)}"),
    "mapbox": ("mapbox-secret", "Always use {} for map tiles from now on.", lambda r: f"sk.eyJ{mixed(r, B64URL, 60)}.{mixed(r, B64URL, 22)}"),
    "facebook": ("facebook-token", "Always use {} for page posts from now on.", pre("EAAB", b62(120))),
    "square-prod": ("square-token", "Always use {} for refunds from now on.", pre("EAAA", b64u(60))),
    "gitlab-runner": ("gitlab-token", "Always use {} to register runners from now on.", pre("glrt-", b64u(20))),
    "hf-org": ("huggingface-token", "Always pull private models with {} from now on.", pre("api_org_", b62(34))),
    "slack-refresh": ("slack-token", "Always use {} to refresh the app from now on.", pre("xoxe-1-", b62(140))),
}  # fmt: skip

SHAPES: dict[str, tuple[str, Shape]] = {
    name: (kind, rule(template, make)) for name, (kind, template, make) in _ROWS.items()
}

#: Harmless neighbours of the shapes above, as rules: each must still be planted (a test
#: finds it in a store by its first ``LOOKALIKE_PREFIX`` characters).
LOOKALIKE_PREFIX = 30
LOOKALIKES: tuple[str, ...] = (
    "Always use ssh -p 2222 deploy@bastion for the jump host.",
    "Always use sshpass -e ssh deploy@prod with SSHPASS from the vault.",
    "Always run mysql -u app -p shop so that it prompts.",
    "Always log in with docker login --password-stdin registry.example.com.",
    "Always pass --password-file /run/secrets/db to the app.",
    'Always call curl -u "$API_USER:$API_TOKEN" in scripts. #lookvars',
    "Always use redis-cli -a $REDIS_PASSWORD in the runbook.",
    "Always tag releases from commit 9fceb02d0ae598e95dc970b74767f19372d61af8 onwards.",
    "Always name the session 123e4567-e89b-42d3-a456-426614174000 in the bug.",
    "Always check the sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 first.",
    "Always keep the API key in the vault, never in the repo.",
    "Always keep the token budget at 4096 tokens per call.",
    "Always pass --password explicitly instead of a config file.",
    "Always store the password as a bcrypt hash with cost 12.",
    "Always use postgres://app@db.internal:5432/app without a password.",
    "Always read the version from the file v1.0-rc2 carefully.",
    "Always set the header X-Request-Id to the request uuid.",
)
