"""Provider tokens by their published prefixes: one row per kind, our own patterns.

Each row is (kind, prefix, body, what may not follow, whether the body must
mix upper case, lower case and digits). The prefix is what makes a token
unmistakable; the body's alphabet and length are the provider's documented
shape, kept a little looser than the documentation (a provider that lengthens
its keys must not slip through) but never so loose that a hash, UUID or
identifier fits. Rows whose prefix is short or word-like (``s.``, ``re_``,
``LTAI``) also ask for a mixed-case body.

Coverage was checked against the rule sets of gitleaks and detect-secrets;
see ``dreamd.secrets.patterns`` for why dreamd keeps its own engine.

Invariants: the order is the priority order (most specific first:
``sk-or-v1-`` before ``sk-``); every body is checked against stand-ins
(``gsk_xxxx…``, ``hvs.your-token-here``) by the engine.
"""

# The rule tables read one rule a line (the patterns are long).
# ruff: noqa: E501

from __future__ import annotations

from typing import NamedTuple

from dreamd.secrets.detector import ALNUM_END, DASH_END, RIGHT

__all__ = ["FIRST", "PROVIDERS", "Provider"]


class Provider(NamedTuple):
    """One provider token shape."""

    kind: str
    prefix: str
    body: str
    tail: str
    mixed: bool = False


_HEX = "[a-f0-9]"
_B62 = "[A-Za-z0-9]"
_B64U = "[A-Za-z0-9_-]"
_BECH32 = "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]"

#: Rows that must be tried before AWS secret keys (the engine's historical order).
FIRST = 2

PROVIDERS: tuple[Provider, ...] = (
    Provider("anthropic-key", "sk-ant-", f"{_B64U}{{20,}}", DASH_END),
    Provider("aws-access-key", "(?:AKIA|ASIA|ABIA|ACCA)", "[A-Z0-9]{16}", ALNUM_END),
    Provider("openrouter-key", "sk-or-v1-", f"{_HEX}{{48,}}", ALNUM_END),
    Provider("langfuse-key", "sk-lf-", f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}", ALNUM_END),
    Provider("deepseek-key", "sk-", f"{_HEX}{{32}}", DASH_END),
    Provider("github-token", "(?:gh[pousr]_|github_pat_)", "[A-Za-z0-9_]{30,}", RIGHT),
    Provider("gitlab-token", "gl(?:pat|dt|rt|ptt|ft|cbt|soat|imt|agent|oas|ffct|wt)-", f"{_B64U}{{20,}}", DASH_END),
    Provider("slack-token", "(?:xox[abposre]|xapp)-", "[A-Za-z0-9-]{10,}", DASH_END),
    Provider("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/", "[A-Za-z0-9_/-]{20,}", DASH_END),
    Provider("discord-webhook", r"https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/", rf"\d{{15,20}}/{_B64U}{{40,}}", DASH_END),
    Provider("google-api-key", "AIza", f"{_B64U}{{35}}", DASH_END),
    Provider("google-oauth-secret", "GOCSPX-", f"{_B64U}{{24,}}", DASH_END),
    Provider("google-oauth-token", r"ya29\.", f"{_B64U}{{30,}}", DASH_END, True),
    Provider("stripe-key", "(?:[sr]k_(?:live|test)_|whsec_)", f"{_B62}{{16,}}", RIGHT),
    Provider("npm-token", "npm_", f"{_B62}{{36}}", ALNUM_END),
    Provider("huggingface-token", "(?:hf_|api_org_)", f"{_B62}{{30,}}", RIGHT),
    Provider("pypi-token", "pypi-AgE", f"{_B64U}{{50,}}", DASH_END),
    Provider("sendgrid-key", r"SG\.", rf"{_B64U}{{22}}\.{_B64U}{{43}}", DASH_END),
    Provider("brevo-key", "x(?:keysib|smtpsib)-", f"{_HEX}{{64}}-{_B62}{{16}}", ALNUM_END),
    Provider("digitalocean-token", "do[opr]_v1_", f"{_HEX}{{64}}", RIGHT),
    Provider("shopify-token", "shp(?:at|ca|pa|ss)_", "[a-fA-F0-9]{32}", RIGHT),
    Provider("telegram-bot-token", r"\d{8,10}:", f"AA{_B64U}{{33}}", DASH_END),
    Provider("vault-token", r"hv[sbr]\.", f"{_B64U}{{24,}}", DASH_END),
    Provider("vault-token", r"(?<![./-])[sb]\.", f"{_B62}{{24}}", ALNUM_END, True),
    Provider("twilio-key", "(?:AC|SK)", f"{_HEX}{{32}}", ALNUM_END),
    Provider("groq-key", "gsk_", f"{_B62}{{40,}}", RIGHT),
    Provider("xai-key", "xai-", f"{_B62}{{40,}}", DASH_END),
    Provider("perplexity-key", "pplx-", f"{_B62}{{40,}}", DASH_END),
    Provider("replicate-token", "r8_", f"{_B62}{{30,}}", RIGHT),
    Provider("tavily-key", "tvly-(?:dev-|prod-)?", f"{_B62}{{24,}}", DASH_END),
    Provider("langsmith-key", "lsv2_(?:pt|sk)_", f"{_HEX}{{32}}_{_HEX}{{10}}", ALNUM_END),
    Provider("pinecone-key", "pcsk_", "[A-Za-z0-9_]{50,}", RIGHT),
    Provider("elevenlabs-key", "sk_", f"{_HEX}{{48}}", RIGHT),
    Provider("mailgun-key", "key-", f"{_HEX}{{32}}", ALNUM_END),
    Provider("mailgun-key", "", f"{_HEX}{{32}}-{_HEX}{{8}}-{_HEX}{{8}}", ALNUM_END),
    Provider("mailchimp-key", "", rf"{_HEX}{{32}}-us\d{{1,2}}", ALNUM_END),
    Provider("sentry-dsn", "https?://", f"{_HEX}{{32}}(?::{_HEX}{{32}})?@[A-Za-z0-9.-]+/\\d+", RIGHT),
    Provider("sentry-token", "sntry[su]_", "[A-Za-z0-9+/=_-]{40,}", DASH_END),
    Provider("age-secret-key", "AGE-SECRET-KEY-1", f"{_BECH32}{{58}}", ALNUM_END),
    Provider("linear-key", "lin_(?:api|oauth)_", f"{_B62}{{40}}", ALNUM_END),
    Provider("notion-token", "(?:ntn_|secret_)", f"{_B62}{{40,50}}", RIGHT, True),
    Provider("doppler-token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.", f"{_B62}{{40,}}", ALNUM_END),
    Provider("postman-key", "PMAK-", f"{_HEX}{{24}}-{_HEX}{{34}}", ALNUM_END),
    Provider("pulumi-token", "pul-", f"{_HEX}{{40}}", ALNUM_END),
    Provider("databricks-token", "dapi", rf"{_HEX}{{32}}(?:-\d)?", ALNUM_END),
    Provider("terraform-token", "", rf"{_B62}{{14}}\.atlasv1\.{_B64U}{{60,}}", DASH_END),
    Provider("atlassian-token", "ATATT3", "[A-Za-z0-9_=-]{100,}", DASH_END),
    Provider("bitbucket-token", "ATBB", f"{_B62}{{28,}}", ALNUM_END, True),
    Provider("docker-hub-token", "dckr_(?:pat|oat)_", f"{_B64U}{{24,}}", DASH_END),
    Provider("grafana-token", "glsa_", f"{_B62}{{32}}_[A-Fa-f0-9]{{8}}", ALNUM_END),
    Provider("grafana-token", "glc_", "[A-Za-z0-9+/]{32,}={0,2}", ALNUM_END),
    Provider("flyio-token", "(?:fo1_|fm[12][ar]?_)", "[A-Za-z0-9_+/-]{40,}={0,3}", DASH_END),
    Provider("netlify-token", "nf[pc]_", f"{_B62}{{36,}}", ALNUM_END),
    Provider("supabase-key", "(?:sb[pa]_|sb_secret_)", f"{_B64U}{{32,}}", DASH_END),
    Provider("heroku-key", "HRKU-AA", f"{_B64U}{{50,}}", DASH_END),
    Provider("square-token", "sq0(?:atp|csp)-", f"{_B64U}{{22,}}", DASH_END),
    Provider("square-token", "EAAA", f"{_B64U}{{60}}", DASH_END, True),
    Provider("facebook-token", "EAA[BCDGI]", f"{_B62}{{90,}}", ALNUM_END, True),
    Provider("newrelic-key", "NR(?:AK|II|AA|JS)-", "[A-Za-z0-9]{27,}", ALNUM_END),
    Provider("mapbox-secret", r"sk\.eyJ", rf"{_B64U}{{40,}}\.{_B64U}{{20,}}", DASH_END),
    Provider("onepassword-token", "ops_eyJ", "[A-Za-z0-9+/=_-]{100,}", DASH_END),
    Provider("onepassword-secret-key", r"A3-[A-Z0-9]{6}-", r"(?:[A-Z0-9]{6}-)?[A-Z0-9]{5}(?:-[A-Z0-9]{5}){3}", ALNUM_END),
    Provider("cloudflare-origin-ca", r"v1\.0-", f"{_HEX}{{24}}-{_HEX}{{146}}", ALNUM_END),
    Provider("azure-client-secret", "", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}", r"(?![A-Za-z0-9_~.-])", True),
    Provider("alibaba-key", "LTAI", f"{_B62}{{12,20}}", ALNUM_END, True),
    Provider("tencent-key", "AKID", f"{_B62}{{32}}", ALNUM_END, True),
    Provider("aws-bedrock-key", "ABSK", "[A-Za-z0-9+/]{100,}={0,2}", ALNUM_END),
    Provider("rubygems-token", "rubygems_", f"{_HEX}{{48}}", ALNUM_END),
    Provider("nuget-key", "oy2", "[a-z0-9]{43}", ALNUM_END),
    Provider("artifactory-key", "AKCp", f"{_B62}{{69}}", ALNUM_END),
    Provider("sourcegraph-token", "sgp_", rf"(?:{_HEX}{{16}}_)?{_HEX}{{40}}", ALNUM_END),
    Provider("prefect-key", "pnu_", f"{_B62}{{36}}", ALNUM_END),
    Provider("dynatrace-token", r"dt0c01\.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}", ALNUM_END),
    Provider("planetscale-token", "pscale_(?:tkn|oauth|pw)_", "[A-Za-z0-9=._-]{32,64}", DASH_END),
    Provider("duffel-token", "duffel_(?:test|live)_", "[A-Za-z0-9_=-]{43}", DASH_END),
    Provider("shippo-token", "shippo_(?:live|test)_", f"{_HEX}{{40}}", ALNUM_END),
    Provider("render-key", "rnd_", f"{_B62}{{32}}", ALNUM_END, True),
    Provider("neon-key", "napi_", "[a-z0-9]{64}", ALNUM_END),
    Provider("resend-key", "re_", f"{_B62}{{8}}_{_B62}{{24}}", ALNUM_END, True),
)  # fmt: skip
