"""The built-in crawler: same-site breadth-first over the guarded fetch, robots.txt and a politeness delay.

``crawl(start_url, depth, limit, delay)`` visits the start page, then the pages it links to on the
same site (scheme + host + port), level by level, until ``depth`` link hops or ``limit`` fetched
pages. URLs are deduplicated after normalisation (fragment dropped, host lower-cased, default port
removed). Documents that ``hermes_nb.web.content`` reads (PDF, Markdown, text, JSON, CSV, feeds) are
converted like the HTML pages but not searched for links; links to media, archives, binaries and
assets are skipped, and so is a fetched page of a type nobody can read. ``robots.txt`` is read with
``urllib.robotparser`` from text fetched through ``hermes_nb.net.fetch``. Returns the Hermes crawl
envelope ``{"results": [{"url", "title", "content", "metadata"}, ...]}``.
"""

from __future__ import annotations

import time
import urllib.robotparser
from collections import deque
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from hermes_nb import config
from hermes_nb.errors import ContentError, ContentFetchError, HermesError, InvalidInputError, TransportError
from hermes_nb.net.fetch import fetch
from hermes_nb.web import content
from hermes_nb.web.extraction.tree import document_base

__all__ = ["crawl", "normalize_url", "extract_links", "ROBOTS_AGENT"]

#: The product token matched against ``User-agent:`` lines of robots.txt.
ROBOTS_AGENT = "hermes_nb"
MAX_ROBOTS_DELAY = 30.0  # a site's Crawl-delay is honoured up to this many seconds
_SKIP_EXTENSIONS = frozenset(
    {
        "zip", "gz", "tgz", "bz2", "xz", "7z", "rar", "tar", "jpg", "jpeg", "png", "gif", "webp",
        "svg", "ico", "bmp", "tif", "tiff", "mp3", "mp4", "m4a", "wav", "ogg", "webm", "avi", "mov", "mkv",
        "flac", "css", "js", "mjs", "woff", "woff2", "ttf", "otf", "eot", "exe", "dmg", "msi", "iso", "apk",
        "deb", "rpm", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods",
    }
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str) -> str:
    """The dedupe key of a URL: no fragment, lower-case scheme and host, no default port, path ``/``."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _site(url: str) -> tuple[str, str]:
    parts = urlsplit(normalize_url(url))
    return parts.scheme, parts.netloc


def _worth_fetching(url: str) -> bool:
    last = urlsplit(url).path.rsplit("/", 1)[-1]
    return "." not in last or last.rsplit(".", 1)[-1].lower() not in _SKIP_EXTENSIONS


def extract_links(html: str, base_url: str) -> list[str]:
    """Absolute http(s) targets of ``<a href>`` in document order (``<base href>`` honoured)."""
    import lxml.html

    try:
        root = lxml.html.document_fromstring(html)
    except (ValueError, TypeError, lxml.etree.ParserError):
        return []
    base = document_base(root, base_url)
    links = []
    for href in root.xpath("//a/@href"):
        target = urljoin(base, str(href).strip())
        if urlsplit(target).scheme in ("http", "https"):
            links.append(target)
    return links


def _robots_for(start: str, fetcher: Callable[..., Any]) -> urllib.robotparser.RobotFileParser:
    scheme, netloc = _site(start)
    robots_url = f"{scheme}://{netloc}/robots.txt"
    parser = urllib.robotparser.RobotFileParser(robots_url)
    try:
        fetched = fetcher(robots_url, max_bytes=512 * 1024, accept="text/plain")
    except ContentFetchError as exc:
        # RFC 9309: unreachable-for-auth means disallow all; any other client error means allow all.
        parser.parse(["User-agent: *", "Disallow: /"] if exc.status in (401, 403) else [])
        return parser
    except (ContentError, TransportError):
        parser.parse([])
        return parser
    parser.parse(fetched.text.splitlines())
    return parser


def crawl(
    start_url: str,
    depth: int = 2,
    limit: int = 20,
    delay: float | None = None,
    *,
    respect_robots: bool = True,
    fetcher: Callable[..., Any] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    images: bool | None = None,
) -> dict[str, Any]:
    """Crawl one site breadth-first; failures of the start page raise, later ones become per-page errors.

    ``images``: each page's figures in its Markdown, as ``extract`` reads them (``None``: the
    ``web.extract.images`` setting)."""
    if fetcher is None:
        fetcher = fetch
    if not isinstance(start_url, str) or urlsplit(start_url.strip()).scheme not in ("http", "https"):
        raise InvalidInputError(f"crawl needs an http(s) start URL, got {start_url!r}")
    depth = max(0, int(depth))
    limit = max(1, int(limit))
    pause = float(config.get("web.crawl_delay", 0.5) if delay is None else delay)
    if images is None:
        images = bool(config.get("web.extract.images", False))
    start = normalize_url(start_url)
    site = _site(start)
    robots = _robots_for(start, fetcher) if respect_robots else None
    if robots is not None:
        site_delay = robots.crawl_delay(ROBOTS_AGENT)
        if site_delay:
            pause = max(pause, min(float(site_delay), MAX_ROBOTS_DELAY))
        if not robots.can_fetch(ROBOTS_AGENT, start):
            raise ContentFetchError(
                f"robots.txt of {site[1]} disallows {start} for {ROBOTS_AGENT}; pick another start page",
                details={"robots": True},
            )

    queue: deque[tuple[str, int]] = deque([(start, 0)])
    seen = {start}
    results: list[dict[str, Any]] = []
    fetched_count = 0
    while queue and fetched_count < limit:
        url, level = queue.popleft()
        if fetched_count and pause > 0:
            sleep(pause)
        fetched_count += 1
        try:
            fetched = fetcher(url, accept="text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
        except HermesError as exc:
            if url == start:
                raise
            results.append(_error_page(url, level, exc))
            continue
        final = normalize_url(fetched.final_url or url)
        if _site(final) != site:
            continue  # redirected off the site: not ours to crawl
        if final != url:
            if final in seen:
                continue  # a redirect to a page already queued or visited
            seen.add(final)
        kind = content.kind_of(fetched.content_type)
        if kind is None:
            continue  # a type nobody can read (an image, an archive) behind an innocent-looking link
        is_html = kind == "html"
        try:
            if is_html:
                doc = content.html_to_markdown(fetched.text, url=final, images=images)
            else:
                doc = content.convert_fetched(fetched)
        except ContentError as exc:  # a damaged document (a broken PDF): this page fails, not the crawl
            results.append(_error_page(final, level, exc))
            continue
        meta = dict(doc.metadata)
        meta.update({"depth": level, "final_url": fetched.final_url or url, "truncated": fetched.truncated,
                     "bytes": len(fetched.content)})
        results.append({"url": final, "title": doc.title or final, "content": doc.content, "metadata": meta})
        if level >= depth or not is_html:
            continue
        html = fetched.text
        for link in extract_links(html, fetched.final_url or url):
            key = normalize_url(link)
            if key in seen or _site(key) != site or not _worth_fetching(key):
                continue
            if robots is not None and not robots.can_fetch(ROBOTS_AGENT, key):
                continue
            seen.add(key)
            queue.append((key, level + 1))
    return {"results": results}


def _error_page(url: str, level: int, exc: HermesError) -> dict[str, Any]:
    return {
        "url": url,
        "title": url,
        "content": "",
        "metadata": {"depth": level},
        "error": exc.message,
        "error_code": exc.code,
    }
