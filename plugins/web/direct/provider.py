"""direct: keyless extract and crawl — the guarded fetch plus local conversion, no third party by default."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from concurrent.futures import CancelledError, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import TimeoutError as WaitedTooLong
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from hermes_nb.provider_api import (
    Document,
    HermesError,
    WebSearchProvider,
    config,
    convert_fetched,
    crawl_site,
    extracted_page,
    failed_page,
    fetch,
    html_converter_ready,
    kind_of,
)

from . import reader

ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"
MAX_PARALLEL = 4  # URLs fetched at once by one extract call
#: Seconds one page's conversion may take on a worker before the worker is taken for stuck: a process
#: forked while another thread of the kernel held a lock can wait for it forever. The pool is then
#: stopped and the page converted in this process, so a call never hangs on a worker. No page comes
#: near it: the slowest of the benchmark corpora's 1,488 (3.2 MB of HTML) converts in 1.9 s.
WORKER_WAIT = 120.0
DEFAULT_MIN_CONFIDENCE = 0.5  # web.extract.min_confidence when unset

_pool_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_pool_size = 0


def _converter_pool() -> ProcessPoolExecutor | None:
    """One process per core for converting pages, kept for the session; None on one core or off Linux.

    Workers are forked (Linux): they start with the converter already imported and never re-run the
    user's ``__main__`` (a script without a main guard stays safe). They are all forked at once,
    here, before this call starts its fetch threads. ``web.extract.processes`` caps their number
    (1: convert in this process).
    """
    global _pool, _pool_size
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    wanted = _processes()
    if wanted:
        cores = min(cores, wanted)
    if cores < 2 or not sys.platform.startswith("linux"):
        return None
    if _pool is not None and _pool_size != cores:  # web.extract.processes changed
        _drop_pool()
    try:
        html_converter_ready()  # imported here, so forked workers inherit it
    except HermesError:  # a broken install: convert here, so each page fails with the fix
        return None
    with _pool_lock:
        if _pool is None:
            pool = ProcessPoolExecutor(max_workers=cores, mp_context=multiprocessing.get_context("fork"))
            try:
                # fork every worker now (fork pools start all at once)
                pool.submit(os.getpid).result(timeout=WORKER_WAIT)
            except (BrokenProcessPool, OSError, WaitedTooLong):
                _kill(pool)
                return None
            _pool, _pool_size = pool, cores
        return _pool


def _processes() -> int:
    """``web.extract.processes``: 0 means one per core."""
    try:
        return max(0, int(config.get("web.extract.processes", 0) or 0))
    except (TypeError, ValueError):
        return 0


def _drop_pool(broken: ProcessPoolExecutor | None = None) -> None:
    """Forget the session's pool (only if it is still ``broken``, when given: another thread may have
    forked a new one since) and shut it down; a later call forks a new one."""
    global _pool
    with _pool_lock:
        pool = _pool
        if pool is None or (broken is not None and pool is not broken):
            return
        _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Kill the workers of a pool (one is stuck) and drop it; the calls waiting on it convert here."""
    _kill(pool)
    _drop_pool(pool)


def _kill(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's worker processes (before its shutdown forgets them) and shut it down.

    SIGKILL, not SIGTERM: a worker inherits the kernel's signal handlers when it is forked, so one
    stuck on a lock outlives a SIGTERM that a library in the kernel catches. A stuck worker holds
    nothing worth a clean exit (it only converts pages)."""
    kill = getattr(pool, "kill_workers", None)  # Python 3.14
    if kill is not None:
        kill()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def _threshold() -> float:
    value = config.get("web.extract.min_confidence", DEFAULT_MIN_CONFIDENCE)
    try:
        return float(value)
    except (TypeError, ValueError):
        return DEFAULT_MIN_CONFIDENCE


def _reading_options(images: object = None) -> dict[str, Any]:
    """How the call and the user's settings ask pages to be read (``convert_fetched``'s keywords), read
    here in the kernel: a worker process forked earlier holds the settings of then. ``images``: the
    call's ``images=`` keyword; absent, ``web.extract.images``."""
    figures = bool(config.get("web.extract.images", False)) if images is None else bool(images)
    return {"min_confidence": _threshold(), "images": figures}


def _convert(fetched: Any, pool: ProcessPoolExecutor | None, options: dict[str, Any]) -> Document:
    """Convert in a worker process when a pool is given (in this process if the pool broke, or if the
    worker took more than ``WORKER_WAIT`` seconds: it is stuck, and the pool is stopped)."""
    if pool is None:
        return convert_fetched(fetched, **options)
    try:
        future = pool.submit(convert_fetched, fetched, **options)
    except RuntimeError:  # broken or shut down since this call took it
        return convert_fetched(fetched, **options)
    try:
        return future.result(timeout=WORKER_WAIT)
    except (BrokenProcessPool, CancelledError):  # cancelled: another thread stopped the pool
        _drop_pool(pool)
    except WaitedTooLong:
        _stop(pool)
    return convert_fetched(fetched, **options)


class DirectProvider(WebSearchProvider):
    """Fetch pages yourself (SSRF-guarded) and convert them locally; per-URL errors, never a failed call."""

    name = "direct"
    display_name = "Direct fetch (keyless)"
    tier = "keyless"
    price_note = "free"
    tagline = "Fetches pages itself; HTML, text, JSON, CSV, feeds and PDF converted locally."
    docs_url = "https://github.com/hermes-nb/hermes_nb#reliability-and-safety"  # our own fetcher: the README

    def is_available(self) -> bool:
        return True

    def is_keyless_available(self) -> bool:
        return True

    def supports_search(self) -> bool:
        return False

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        prefer_reader = bool(kwargs.get("prefer_reader", False))
        options = _reading_options(kwargs.get("images"))
        # Pages are converted on every core (worker processes), also one page at a time: concurrent
        # calls (extract_many's threads) then share the cores instead of one interpreter lock.
        converters = _converter_pool()
        if len(urls) <= 1:
            return [self._one(url, prefer_reader, converters, options) for url in urls]
        # Several pages: fetch on threads, convert as each fetch lands.
        workers = min(MAX_PARALLEL, len(urls))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="direct") as pool:
            return list(pool.map(lambda url: self._one(url, prefer_reader, converters, options), urls))

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        depth = kwargs.get("depth", 2)
        return crawl_site(
            url,
            depth=depth if isinstance(depth, int) else 2,
            limit=int(kwargs.get("limit", 20)),
            delay=kwargs.get("delay"),
            images=None if kwargs.get("images") is None else bool(kwargs["images"]),
        )

    def _one(
        self, url: str, prefer_reader: bool, converters: ProcessPoolExecutor | None, options: dict[str, Any]
    ) -> dict[str, Any]:
        try:
            fetched = fetch(url, accept=ACCEPT)
            doc = _convert(fetched, converters, options)
        except HermesError as exc:
            return failed_page(url, exc.message, exc.code)
        final_url = fetched.final_url or url
        meta = dict(doc.metadata)
        meta.update(
            {
                "final_url": final_url,
                "status": fetched.status,
                "truncated": fetched.truncated,
                "bytes": len(fetched.content),
            }
        )
        if fetched.redirects:
            meta["redirects"] = list(fetched.redirects)
        if kind_of(fetched.content_type) == "html" and config.get("web.jina_fallback", False):
            doc = _with_reader(doc, fetched.text, final_url, meta, prefer_reader, options["min_confidence"])
        return extracted_page(url, doc.content, title=doc.title or final_url, metadata=meta)


def _with_reader(
    doc: Document, html: str, final_url: str, meta: dict[str, Any], prefer: bool, threshold: float
) -> Document:
    """Jina Reader's version of the page when a trigger fires; the local one on any failure."""
    why = "prefer_reader" if prefer else reader.trigger(html, doc.content)
    if why is None and float(meta.get("confidence", 1.0)) < threshold:
        why = "low-confidence"
    if why is None:
        return doc
    if not reader.may_forward(final_url):
        meta["reader_warning"] = "Jina Reader skipped: the page's address is not public"
        return doc
    try:
        better = reader.read(final_url)
    except HermesError as exc:
        meta["reader_warning"] = f"Jina Reader failed ({exc.code}); kept the local extraction"
        return doc
    meta.update(better.metadata)
    meta["reader"] = "jina"
    meta["reader_reason"] = why
    meta["local_extractor"] = meta.get("extractor", "")
    meta.pop("low_confidence", None)  # ``confidence`` stays: it scores the local extraction
    meta["extractor"] = "jina-reader"
    meta["third_party"] = "the URL was sent to Jina Reader (web.jina_fallback is on)"
    return Document(title=better.title or doc.title, content=better.content, metadata=meta)
