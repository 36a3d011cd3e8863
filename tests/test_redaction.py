"""Secrets are masked wherever text leaves the SDK."""

from __future__ import annotations

from hermes_nb.redaction import MASK, is_secret_name, redact, register_secret


def test_registered_values_are_masked() -> None:
    register_secret("plain-secret-value")
    assert redact("x plain-secret-value y") == f"x {MASK} y"


def test_short_values_are_not_registered() -> None:
    register_secret("ab")
    assert redact("ab cd") == "ab cd"


def test_credential_shapes_are_masked_without_registration() -> None:
    text = (
        "Authorization: Bearer abcdefghijk X-Subscription-Token: BSAxyz123456 "
        "GET /s?q=1&api_key=abcdef123456 {\"api_key\": \"hello12345\"} sk-proj-aaaaaaaaaaaa"
    )
    out = redact(text)
    for secret in ("abcdefghijk", "BSAxyz123456", "abcdef123456", "hello12345", "aaaaaaaaaaaa"):
        assert secret not in out


def test_ordinary_text_is_untouched() -> None:
    text = "plugins enable web/brave; query=python tutorials; see https://example.com/a?q=1"
    assert redact(text) == text


def test_secret_names() -> None:
    assert is_secret_name("BRAVE_SEARCH_API_KEY") and is_secret_name("api_token")
    assert not is_secret_name("base_url") and not is_secret_name("SEARXNG_URL")


def test_a_reset_forgets_remembered_values() -> None:
    from hermes_nb import _state
    from hermes_nb.redaction import redact, register_secret

    register_secret("g-test")  # a test's short fake key …
    assert redact("https://blog.test/loading-test-3") == "https://blog.test/loadin***-3"
    _state.reset_all()
    assert redact("https://blog.test/loading-test-3") == "https://blog.test/loading-test-3"  # … not the next
