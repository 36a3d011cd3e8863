"""ddgs provider with a fake ``ddgs`` package in the worker process (the real one needs the internet)."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from hermes_nb import config
from hermes_nb.errors import (
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError_,
)
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers

FAKE_DDGS = """
import time


class DDGSException(Exception):
    pass


class RatelimitException(DDGSException):
    pass


class TimeoutException(DDGSException):
    pass


class DDGS:
    def __init__(self, timeout=5, **kw):
        self.timeout = timeout

    def text(self, query, max_results=10, **kw):
        if query == "hang":
            time.sleep(3600)
        if query == "ratelimit":
            raise RatelimitException("202 Ratelimit")
        if query == "timeout":
            raise TimeoutException("https://html.duckduckgo.com/html timed out")
        if query == "empty":
            raise DDGSException("No results found.")
        if query == "offline":
            raise DDGSException(OSError("error sending request: DNS error"))
        if query == "all-limited":
            raise DDGSException(RatelimitException("202 Ratelimit"))
        if query == "boom":
            raise RuntimeError("engine exploded")
        rows = [{"title": f"Result {i}", "href": f"https://example.com/{i}", "body": f"snippet {i}"}
                for i in range(max_results + 3)]
        rows.insert(1, {"title": "no link", "body": "dropped"})
        rows[0]["body"] = f"timeout={self.timeout} max_results={max_results}"
        return rows
"""


@pytest.fixture
def ddgs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = tmp_path / "fake_site" / "ddgs"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("from .exceptions import *  # noqa\nfrom .exceptions import DDGS\n")
    (fake / "exceptions.py").write_text(textwrap.dedent(FAKE_DDGS))
    # the worker is a fresh interpreter: PYTHONPATH puts the fake package ahead of the real one
    monkeypatch.setenv("PYTHONPATH", str(fake.parent))
    load_plugins()
    return web_providers.get("ddgs")


def test_metadata_and_availability(ddgs) -> None:
    assert ddgs.tier == "keyless" and ddgs.is_keyless_available() and ddgs.is_available()
    assert ddgs.get_setup_schema()["env_vars"] == []


def test_search_maps_href_and_body(ddgs) -> None:
    out = ddgs.search("python", limit=4)
    hits = out["data"]["web"]
    assert out["success"] is True and len(hits) == 4
    assert hits[0] == {
        "title": "Result 0",
        "url": "https://example.com/0",
        "description": "timeout=10 max_results=4",
        "position": 1,
    }
    assert [h["url"] for h in hits[1:]] == [f"https://example.com/{i}" for i in (1, 2, 3)]
    assert [h["position"] for h in hits] == [1, 2, 3, 4]


def test_ratelimit_is_rate_limited_not_no_results(ddgs) -> None:
    with pytest.raises(RateLimitedError):
        ddgs.search("ratelimit")


def test_ddgs_timeout_exception(ddgs) -> None:
    with pytest.raises(TimeoutError_, match="timed out"):
        ddgs.search("timeout")


def test_no_results_is_empty_success_with_warning(ddgs) -> None:
    out = ddgs.search("empty")
    assert out["success"] is True and out["data"]["web"] == []
    assert "rate limiting" in out["data"]["warning"]


def test_every_engine_failing_is_an_error_not_an_empty_list(ddgs) -> None:
    with pytest.raises(ProviderUnavailableError, match=r"ddgs could not reach any search engine") as info:
        ddgs.search("offline")
    assert "OSError" not in info.value.message  # the same words on every run …
    assert "OSError: " in info.value.details["engines"]  # … and what the engines said, kept
    with pytest.raises(RateLimitedError):
        ddgs.search("all-limited")


def test_other_failures_are_unavailable(ddgs) -> None:
    with pytest.raises(ProviderUnavailableError, match="RuntimeError: engine exploded"):
        ddgs.search("boom")


def test_hang_is_killed_at_the_wall_clock(ddgs) -> None:
    config.set("web.ddgs.timeout", 1.5)
    started = time.monotonic()
    with pytest.raises(TimeoutError_, match="within 1.5 s"):
        ddgs.search("hang")
    assert time.monotonic() - started < 4.0


def test_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    load_plugins()
    provider = web_providers.get("ddgs")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "ddgs" else real(n, *a))
    assert not provider.is_available() and not provider.is_keyless_available()  # type: ignore[union-attr]
    with pytest.raises(ProviderNotConfiguredError, match="pip install ddgs"):
        provider.search("q")  # type: ignore[union-attr]
