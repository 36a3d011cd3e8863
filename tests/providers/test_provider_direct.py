"""direct provider against the emulator's site: every content type, per-URL errors, Jina fallback rules."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from multiprocessing.connection import wait as wait_for_exit
from typing import Any

import pytest

from hermes_nb import config
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers
from hermes_nb.provider_api import convert_fetched
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=11) as server:
        yield server


@pytest.fixture
def direct(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu):
        yield web_providers.get("direct")


def test_capabilities() -> None:
    load_plugins()
    provider = web_providers.get("direct")
    assert provider is not None and provider.is_available() and provider.is_keyless_available()
    assert not provider.supports_search() and provider.supports_extract() and provider.supports_crawl()


def test_article_metadata_and_request(direct, emu: Emulator) -> None:
    url = emu.page_url("/site/articles/hello-world.html")
    (page,) = direct.extract([url])
    assert page["title"] == "Hello, World: a first notebook"
    # the title is the page's, not repeated as its text's first line (title_heading.py)
    assert "Hello, World" not in page["content"] and page["content"].count("\n\n") >= 4
    assert page["raw_content"] == page["content"]
    meta = page["metadata"]
    assert meta["author"] == "Ada Lovelace" and meta["date"] == "2024-01-15" and meta["language"] == "en"
    assert meta["content_type"] == "text/html" and meta["final_url"] == url
    assert meta["truncated"] is False and meta["bytes"] > 0 and meta["status"] == 200
    (req,) = [r for r in emu.requests if r.path == "/site/articles/hello-world.html"]
    assert req.headers["user-agent"].startswith("hermes_nb/") and "text/html" in req.headers["accept"]


@pytest.mark.parametrize(
    ("path", "ctype", "needle"),
    [
        ("/site/plain.txt", "text/plain", "Plain text notes"),
        ("/site/readme.md", "text/markdown", "# Emulated readme"),
        ("/site/data.json", "application/json", '"name": "emulated"'),
        ("/site/data.csv", "text/csv", "| id | name | price |"),
        ("/site/feed.rss", "application/rss+xml", "- [Hello, World: a first notebook]"),
        ("/site/feed.atom", "application/atom+xml", "- [Hello, World: a first notebook]"),
        ("/site/paper.pdf", "application/pdf", "Deterministic PDF text"),
        ("/site/cp1252.html", "text/html", "Naïve “quotes” and € signs."),
        ("/site/sjis.html", "text/html", "これはシフトJISのページです。"),
    ],
)
def test_content_types(direct, emu: Emulator, path: str, ctype: str, needle: str) -> None:
    (page,) = direct.extract([emu.page_url(path)])
    assert "error" not in page, page.get("error")
    assert page["metadata"]["content_type"] == ctype
    assert needle in page["content"]


def test_per_url_errors_never_fail_the_call(direct, emu: Emulator) -> None:
    urls = [
        emu.page_url("/site/archive.zip"),
        emu.page_url("/site/missing.html"),
        "ftp://example.com/file",
        emu.page_url("/site/articles/python-tips.html"),
    ]
    pages = direct.extract(urls)
    assert [p["url"] for p in pages] == urls
    assert pages[0]["error_code"] == "CONTENT_FETCH_FAILED" and "application/zip" in pages[0]["error"]
    assert pages[1]["error_code"] == "CONTENT_FETCH_FAILED" and "404" in pages[1]["error"]
    assert pages[2]["error_code"] == "INVALID_INPUT"
    assert "error" not in pages[3] and pages[3]["title"].startswith("Ten Python tips")


def test_private_urls_blocked_without_the_emulator_switch(direct, emu: Emulator) -> None:
    config.set("security.private_origins", [])  # what use_emulator lets through, taken back
    (page,) = direct.extract([emu.page_url("/site/")])
    assert page["error_code"] == "CONTENT_BLOCKED"
    assert not [r for r in emu.requests if r.path.startswith("/site")]


def test_redirects_recorded(direct, emu: Emulator) -> None:
    (page,) = direct.extract([emu.page_url("/site/redirect/start")])
    assert page["metadata"]["final_url"] == emu.page_url("/site/articles/hello-world.html")
    assert len(page["metadata"]["redirects"]) == 3


def test_jina_is_off_by_default(direct, emu: Emulator) -> None:
    (page,) = direct.extract([emu.page_url("/site/js-heavy.html")], prefer_reader=True)
    assert "reader" not in page["metadata"] and emu.requests_for("jina") == []


def test_jina_used_when_preferred(direct, emu: Emulator) -> None:
    config.set("web.jina_fallback", True)
    url = emu.page_url("/site/articles/data-science.html")
    (page,) = direct.extract([url], prefer_reader=True)
    meta = page["metadata"]
    assert meta["reader"] == "jina" and meta["reader_reason"] == "prefer_reader"
    assert meta["content_type"] == "text/markdown; source=jina" and "Jina" in meta["third_party"]
    assert page["title"] == "Data science with plain Python"
    (req,) = emu.requests_for("jina")
    assert req.path == f"/jina/{url}" and req.headers["x-no-cache"] == "true"
    assert "authorization" not in req.headers


def test_jina_trigger_and_failure_keeps_local_result(direct, emu: Emulator) -> None:
    config.set("web.jina_fallback", True)
    config.set_key("JINA_API_KEY", "jina_" + "k" * 20)
    (page,) = direct.extract([emu.page_url("/site/js-heavy.html")])
    # the emulated reader cannot run JavaScript either: empty answer -> the local reading + warning,
    # which is empty (the page's only text asks for JavaScript) and says why
    assert page["content"] == ""
    assert page["metadata"]["rendered_by_scripts"] is True
    assert "kept the local extraction" in page["metadata"]["reader_warning"]
    (req,) = emu.requests_for("jina")
    assert req.headers["authorization"].startswith("Bearer jina_")
    emu.fail("jina", "500")
    (page,) = direct.extract([emu.page_url("/site/js-heavy.html")])
    assert "PROVIDER_UNAVAILABLE" in page["metadata"]["reader_warning"] and "error" not in page


def test_long_article_does_not_trigger_jina(direct, emu: Emulator) -> None:
    config.set("web.jina_fallback", True)
    direct.extract([emu.page_url("/site/long.html")])
    assert emu.requests_for("jina") == []


def test_private_url_never_sent_to_a_public_reader(direct, emu: Emulator) -> None:
    config.set("web.jina_fallback", True)
    config.set("web.jina.base_url", "https://r.jina.ai")
    (page,) = direct.extract([emu.page_url("/site/js-heavy.html")], prefer_reader=True)
    assert "not public" in page["metadata"]["reader_warning"]
    assert emu.requests_for("jina") == []


def test_crawl_delegates_to_the_crawler(direct, emu: Emulator) -> None:
    out = direct.crawl(emu.page_url("/site/"), depth=1, limit=4, delay=0)
    urls = [r["url"] for r in out["results"]]
    assert urls[0] == emu.page_url("/site/") and len(urls) == 4
    assert all(u.startswith(emu.url + "/site/") for u in urls)


def test_several_pages_convert_in_worker_processes_like_one(direct, emu: Emulator) -> None:
    paths = ["/site/articles/hello-world.html", "/site/articles/python-tips.html", "/site/long.html"]
    many = direct.extract([emu.page_url(p) for p in paths])
    ones = [direct.extract([emu.page_url(p)])[0] for p in paths]
    for batch, alone in zip(many, ones, strict=True):
        assert batch["content"] == alone["content"] and batch["title"] == alone["title"]
        meta = batch["metadata"]
        assert 0 <= meta["confidence"] <= 1 and meta["page_type"] and meta["extractor"]


def test_low_confidence_goes_to_jina_when_enabled(direct, emu: Emulator) -> None:
    url = emu.page_url("/site/articles/data-science.html")
    config.set("web.extract.min_confidence", 1.0)  # nothing local is ever that sure
    (page,) = direct.extract([url])
    assert page["metadata"]["low_confidence"] and emu.requests_for("jina") == []  # off by default
    config.set("web.jina_fallback", True)
    (page,) = direct.extract([url])
    meta = page["metadata"]
    assert meta["reader"] == "jina" and meta["reader_reason"] == "low-confidence"
    assert meta["extractor"] == "jina-reader" and meta["local_extractor"] in ("trafilatura", "readability")
    assert "low_confidence" not in meta and 0 <= meta["confidence"] <= 1
    config.set("web.extract.min_confidence", 0.0)
    (page,) = direct.extract([url])
    assert "reader" not in page["metadata"]


def test_the_pages_figures_are_read_only_when_web_extract_images_is_on(
    direct, emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = sys.modules[type(direct).__module__]
    config.set("web.extract.processes", 1)  # converted in this process, where the spy sees it
    asked: list[bool] = []
    real = module.convert_fetched

    def spy(fetched: Any, **options: Any) -> Any:
        asked.append(options["images"])
        return real(fetched, **options)

    monkeypatch.setattr(module, "convert_fetched", spy)
    urls = [emu.page_url("/site/articles/hello-world.html"), emu.page_url("/site/articles/python-tips.html")]
    direct.extract(urls[:1])
    config.set("web.extract.images", True)
    direct.extract(urls)
    assert asked == [False, True, True]
    direct.extract(urls[:1], images=False)  # the call's keyword (hn.extract(images=...)) wins
    config.set("web.extract.images", False)
    direct.extract(urls[:1], images=True)
    assert asked[3:] == [False, True]


def test_one_page_at_a_time_also_converts_on_the_workers_unless_set_to_one_process(
    direct, emu: Emulator
) -> None:
    module = sys.modules[type(direct).__module__]
    url = emu.page_url("/site/articles/hello-world.html")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    config.set("web.extract.processes", 1)
    assert module._converter_pool() is None  # 1: convert in this process
    in_kernel = direct.extract([url])[0]
    config.set("web.extract.processes", 0)
    pool = module._converter_pool()
    if cores < 2 or not sys.platform.startswith("linux"):
        assert pool is None
        return
    assert pool is not None and pool.submit(os.getpid).result() != os.getpid()
    on_workers = direct.extract([url])[0]  # extract_many's one-URL calls share the cores this way
    assert on_workers["content"] == in_kernel["content"] and on_workers["title"] == in_kernel["title"]


_TEST_PROCESS = os.getpid()


def _stuck_on_workers(fetched: Any, **kwargs: Any) -> Any:
    """A conversion that never ends on a worker (as one forked while a lock was held) and works here."""
    if os.getpid() != _TEST_PROCESS:
        time.sleep(300)
    return convert_fetched(fetched, **kwargs)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes are forked on Linux only")
def test_a_stuck_worker_is_stopped_and_the_page_converted_here(
    direct, emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stop_stuck_workers(direct, emu, monkeypatch)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes are forked on Linux only")
def test_a_stuck_worker_is_stopped_when_the_kernel_catches_sigterm(
    direct, emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A library in the kernel that catches SIGTERM: the forked workers inherit its handler, so a
    # SIGTERM only runs it and the stuck worker sleeps on.
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        _stop_stuck_workers(direct, emu, monkeypatch)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop_stuck_workers(direct: Any, emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every worker stuck: each page waits WORKER_WAIT, is converted here, and the workers are gone."""
    module = sys.modules[type(direct).__module__]
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: pages are converted in this process")
    module._drop_pool()
    monkeypatch.setattr(module, "convert_fetched", _stuck_on_workers)
    monkeypatch.setattr(module, "WORKER_WAIT", 1.0)
    pool = module._converter_pool()
    workers = list(pool._processes.values())
    started = time.monotonic()
    pages = direct.extract([emu.page_url("/site/articles/hello-world.html"), emu.page_url("/site/plain.txt")])
    assert time.monotonic() - started < 60  # a wait per page at most, never the five minutes asleep
    assert [p.get("error") for p in pages] == [None, None]
    assert pages[0]["title"] == "Hello, World: a first notebook" and "Plain text notes" in pages[1]["content"]
    assert module._pool is None  # stopped; the next call forks a new pool
    # A worker's end of its sentinel pipe closes when it exits. Not ``join``/``is_alive``: the pool's own
    # thread joins its workers too, and when it reaps one first the other thread's waitpid finds no
    # child, so ``is_alive`` can answer True for a process already gone.
    try:
        for worker in workers:
            assert wait_for_exit([worker.sentinel], timeout=30), f"worker {worker.pid} still running"
    finally:  # a worker left running would keep the test run from ending
        for worker in workers:
            if not wait_for_exit([worker.sentinel], timeout=0):
                worker.kill()
