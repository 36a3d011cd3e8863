"""Deadlines on provider calls: a hanging provider fails with TIMEOUT naming it; its late answer is lost."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import config, errors
from hermes_nb.plugins import deadline
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider

HANG_S = 90.0  # what the hanging providers would take if nobody stopped waiting
LIMIT_S = 0.3  # the configured deadline in these tests
WITHIN_S = 30.0  # generous bound on the wall time of a timed-out call: far below HANG_S, never flaky


class Hanging(WebSearchProvider):
    """A plugin whose calls block until released (at most ``HANG_S``), then answer with stale data."""

    tier = "keyless"

    def __init__(self, name: str, release: threading.Event) -> None:
        self._name, self.release, self.returned = name, release, threading.Event()

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def _late(self, payload: Any) -> Any:
        self.release.wait(HANG_S)
        self.returned.set()
        return payload

    def search(self, query: str, limit: int = 5) -> Any:
        hit = {"url": "https://late.test/", "title": "LATE"}
        return self._late({"success": True, "data": {"web": [hit]}})

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        return self._late([{"url": u, "title": "LATE", "content": "LATE"} for u in urls])

    def crawl(self, url: str, **kwargs: Any) -> Any:
        return self._late({"results": [{"url": url, "title": "LATE", "content": "LATE"}]})


class AsyncHanging(Hanging):
    async def search(self, query: str, limit: int = 5) -> Any:  # type: ignore[override]
        for _ in range(int(HANG_S * 10)):  # never answers in time; stops once the test is over
            if self.release.is_set():
                break
            await asyncio.sleep(0.1)
        return {"success": True, "data": {"web": []}}


class Quick(Hanging):
    def search(self, query: str, limit: int = 5) -> Any:
        return {"success": True, "data": {"web": [{"url": "https://fresh.test/", "title": "fresh"}]}}


@pytest.fixture
def release(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    monkeypatch.setattr(image_providers, "loader", lambda kind, name: None)
    monkeypatch.setattr(deadline, "GRACE_S", 0.0)
    config.set("web.deadline", LIMIT_S)
    config.set("image_gen.timeout", LIMIT_S)
    config.set("cache.mode", "read_write")
    event = threading.Event()
    yield event
    event.set()  # the abandoned threads finish now, not 90 s later


def _timed(call: Any) -> tuple[BaseException, float]:
    start = time.monotonic()
    with pytest.raises(errors.TimeoutError_) as info:
        call()
    return info.value, time.monotonic() - start


@pytest.mark.parametrize(
    "call",
    [
        lambda: hn.search("q", backend="hang"),
        lambda: hn.extract(["https://a.test/"], backend="hang"),
        lambda: hn.crawl("https://a.test/", depth=0, limit=1, backend="hang"),
        lambda: asyncio.run(hn.asearch("q", backend="hang")),
        lambda: asyncio.run(hn.aextract(["https://a.test/"], backend="hang")),
    ],
    ids=["search", "extract", "crawl", "asearch", "aextract"],
)
def test_a_hanging_provider_times_out_naming_itself(release: threading.Event, call: Any) -> None:
    web_providers.register(Hanging("hang", release))
    if call.__code__.co_names[-1:] == ("crawl",):
        config.set("web.timeout", LIMIT_S)
    exc, spent = _timed(call)
    assert spent < WITHIN_S
    assert exc.code == "TIMEOUT" and exc.provider == "hang"
    assert "hang" in str(exc) and "abandoned" in str(exc) and "web.deadline" in str(exc)


def test_an_async_provider_that_never_answers_times_out(release: threading.Event) -> None:
    web_providers.register(AsyncHanging("slowasync", release))
    sync_call = lambda: hn.search("q", backend="slowasync")  # noqa: E731 - a pair of calls, named
    async_call = lambda: asyncio.run(hn.asearch("q", backend="slowasync"))  # noqa: E731
    for call in (sync_call, async_call):
        exc, spent = _timed(call)
        assert spent < WITHIN_S and exc.provider == "slowasync"


def _wait_until_no_thread_runs(provider: str) -> None:
    """Provider threads are pooled: they are renamed when their call ends, not joined."""
    until = time.monotonic() + WITHIN_S
    while any(t.name == f"hermes_nb-provider-{provider}" for t in threading.enumerate()):
        assert time.monotonic() < until, f"a {provider} call still runs"
        time.sleep(0.01)


def test_the_kernel_stays_usable_and_the_late_answer_is_discarded(release: threading.Event) -> None:
    hanging = Hanging("hang", release)
    web_providers.register(hanging)
    web_providers.register(Quick("quick", release))
    _timed(lambda: hn.search("q", backend="hang"))
    config.set("web.deadline", WITHIN_S)  # the calls below must answer: no 0.3 s race on a loaded machine
    assert [h.url for h in hn.search("q", backend="quick")] == ["https://fresh.test/"]

    release.set()  # the abandoned call now answers, late
    assert hanging.returned.wait(WITHIN_S)
    _wait_until_no_thread_runs("hang")
    assert "LATE" not in repr(hn.search("q", backend="quick").hits)
    # Nothing of the late answer was cached: asking "hang" again calls it again (and it answers now).
    again = hn.search("q", backend="hang")
    assert not again.cached and [h.title for h in again] == ["LATE"]


class HangingImages(ImageGenProvider):
    def __init__(self, release: threading.Event) -> None:
        self.release = release

    @property
    def name(self) -> str:
        return "sleepy"

    def is_available(self) -> bool:
        return True

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        self.release.wait(HANG_S)
        return {"success": False, "error": "late", "provider": "sleepy"}


def test_a_hanging_image_provider_times_out(release: threading.Event) -> None:
    image_providers.register(HangingImages(release))
    exc, spent = _timed(lambda: hn.imagine("a cat", backend="sleepy"))
    assert spent < WITHIN_S and exc.provider == "sleepy" and "image_gen.timeout" in str(exc)


def test_a_deadline_that_is_not_a_number_names_the_key(hermetic: Path) -> None:
    (hermetic / "config.yaml").write_text("web:\n  deadline: abc\n")  # set refuses it; a file can hold it
    with pytest.raises(errors.InvalidInputError, match=r"web\.deadline must be a number, got str 'abc'"):
        deadline.deadline_for("search")


def test_a_crawl_gets_time_for_its_pages() -> None:
    config.set("web.deadline", 10)
    config.set("web.timeout", 2)
    assert deadline.deadline_for("crawl", pages=50)[0] == 100 + deadline.GRACE_S
    assert deadline.deadline_for("crawl", pages=2)[0] == 10 + deadline.GRACE_S
