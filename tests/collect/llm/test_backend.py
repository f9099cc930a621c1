"""The failures both SDK backends share: an SDK's exceptions sorted, a missing SDK refused."""

from __future__ import annotations

from types import ModuleType

import anthropic
import openai
import pytest

from dreamd.collect.llm.backend import (
    BackendRefused,
    BackendUnavailable,
    RequestRejected,
    sdk_failure,
    sdk_required,
)

# The HTTP library both SDKs build their requests and responses with (renamed between releases).
http = pytest.importorskip("httpx2")
SDKS = pytest.mark.parametrize("sdk", [openai, anthropic], ids=["openai", "anthropic"])
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def request() -> object:
    return http.Request("POST", "http://127.0.0.1:9/v1/messages")


def status_error(sdk: ModuleType, status: int, message: str) -> Exception:
    response = http.Response(status, request=request())
    error: Exception = sdk.APIStatusError(message, response=response, body=None)
    return error


@SDKS
def test_a_timeout_and_a_lost_connection_stop_the_run(sdk: ModuleType) -> None:
    """Both are BackendUnavailable; the timeout says so, the connection error says what it is."""
    timeout = sdk_failure("x", sdk, sdk.APITimeoutError(request()))
    assert isinstance(timeout, BackendUnavailable) and str(timeout) == "x: the request timed out"
    lost = sdk_failure("x", sdk, sdk.APIConnectionError(message="reset by peer", request=request()))
    assert isinstance(lost, BackendUnavailable) and str(lost) == "x: reset by peer"


@SDKS
@pytest.mark.parametrize(
    ("status", "failure"),
    [
        (401, BackendRefused),
        (404, BackendRefused),
        (400, RequestRejected),
        (529, BackendUnavailable),
    ],
)
def test_an_http_status_is_sorted_by_its_code(
    sdk: ModuleType, status: int, failure: type[Exception]
) -> None:
    """The status decides; the SDK's ``Error code: N -`` prefix is dropped from the message."""
    error = sdk_failure("x", sdk, status_error(sdk, status, f"Error code: {status} - no"))
    assert type(error) is failure and str(error).startswith(f"x answered HTTP {status}: no")


@SDKS
def test_a_reply_the_sdk_could_not_read_stops_the_run_without_secrets(sdk: ModuleType) -> None:
    """The SDK's base error: BackendUnavailable, its text passed through the secret filter."""
    base = openai.OpenAIError if sdk is openai else anthropic.AnthropicError
    error = sdk_failure("x", sdk, base(f"cannot parse {TOKEN}"))
    assert isinstance(error, BackendUnavailable) and str(error).startswith("x: cannot parse")
    assert TOKEN not in str(error)


def test_a_missing_sdk_is_refused_naming_the_extra_to_install() -> None:
    """An ImportError inside becomes BackendRefused; other errors pass through unchanged."""
    refused = pytest.raises(BackendRefused, match=r"pip install 'dreamd\[openai\]'")
    with refused, sdk_required("openai"):
        import dreamd_no_such_sdk  # type: ignore[import-not-found]  # noqa: F401
    with pytest.raises(ValueError, match="not an import"), sdk_required("openai"):
        raise ValueError("not an import")
    with sdk_required("anthropic"):
        import json  # noqa: F401
