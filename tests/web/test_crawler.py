"""Crawler: breadth-first order, depth and page limits, robots.txt, same-site, dedupe, delay."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hermes_nb import config
from hermes_nb.errors import ContentFetchError, InvalidInputError, TimeoutError_
from hermes_nb.net.fetch import FetchedContent
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.testing import Emulator, use_emulator
from hermes_nb.web import crawler

ROOT = "https://site.test"


def page(body: str, title: str = "") -> str:
    return f"<html><head><title>{title}</title></head><body><main><p>{body}</p></main></body></html>"


SITE = {
    "/": page(
        '<a href="/a">A</a> <a href="/b#top">B</a> <a href="https://other.test/x">off</a> '
        '<a href="/photo.png">png</a> <a href="mailto:x@y">mail</a> <a href="/a#again">A again</a>',
        "Home",
    ),
    "/a": page('<a href="/a/deep">deep</a> <a href="/">home</a> <a href="/secret/x">s</a>', "Page A"),
    "/b": page('<a href="/b/deep">deep</a> <a href="/moved">moved</a>', "Page B"),
    "/a/deep": page('<a href="/a/deeper">deeper</a>', "A deep"),
    "/b/deep": page("end", "B deep"),
    "/a/deeper": page("bottom", "A deeper"),
    "/secret/x": page("hidden", "Secret"),
    "/target": page("moved here", "Target"),
}


class FakeFetcher:
    """Serves SITE; records calls; ``/moved`` redirects to ``/target``; robots text is configurable."""

    def __init__(self, robots: str | None = "User-agent: *\nDisallow: /secret/\n", robots_status: int = 200):
        self.calls: list[str] = []
        self.robots = robots
        self.robots_status = robots_status

    def __call__(self, url: str, **kw: object) -> FetchedContent:
        self.calls.append(url)
        path = url[len(ROOT):] or "/"
        if path == "/robots.txt":
            if self.robots_status != 200:
                raise ContentFetchError(f"HTTP {self.robots_status}", status=self.robots_status)
            return _fc(url, url, (self.robots or "").encode(), "text/plain")
        if path == "/boom":
            raise TimeoutError_("slow")
        final = f"{ROOT}/target" if path == "/moved" else url
        body = SITE.get(final[len(ROOT):])
        if body is None:
            raise ContentFetchError(f"HTTP 404 Not Found for {url}", status=404)
        return _fc(url, final, body.encode(), "text/html")


def _fc(url: str, final: str, body: bytes, ctype: str) -> FetchedContent:
    return FetchedContent(url=url, final_url=final, status=200, headers={}, content=body, content_type=ctype,
                          charset="utf-8", truncated=False)


def test_normalize_url() -> None:
    assert crawler.normalize_url("HTTPS://Site.Test:443/a#frag") == "https://site.test/a"
    assert crawler.normalize_url("http://site.test:8080") == "http://site.test:8080/"
    assert crawler.normalize_url("http://site.test/p?q=1#x") == "http://site.test/p?q=1"


def test_extract_links_resolves_relative_and_base() -> None:
    html = '<base href="/docs/"><a href="intro">i</a><a href="javascript:x()">j</a>'
    html += '<a href="//cdn.test/z">z</a>'
    assert crawler.extract_links(html, "https://site.test/x") == [
        "https://site.test/docs/intro",
        "https://cdn.test/z",
    ]


def test_breadth_first_same_site_dedupe_robots() -> None:
    fetch = FakeFetcher()
    slept: list[float] = []
    out = crawler.crawl(ROOT + "/", depth=2, limit=20, delay=0.25, fetcher=fetch, sleep=slept.append)
    urls = [r["url"] for r in out["results"]]
    assert urls == [ROOT + p for p in ("/", "/a", "/b", "/a/deep", "/b/deep", "/target")]
    assert [r["metadata"]["depth"] for r in out["results"]] == [0, 1, 1, 2, 2, 2]
    assert out["results"][1]["title"] == "Page A"
    assert fetch.calls[0] == f"{ROOT}/robots.txt"
    assert not any("secret" in c or "other.test" in c or c.endswith(".png") for c in fetch.calls)
    assert f"{ROOT}/a/deeper" not in fetch.calls  # beyond depth 2
    assert slept == [0.25] * 5  # between page requests, none before the first
    assert len(fetch.calls) == 7  # robots + 6 pages (/moved fetched once, lands on /target)


def test_page_limit_and_depth_zero() -> None:
    out = crawler.crawl(ROOT + "/", depth=5, limit=3, delay=0, fetcher=FakeFetcher())
    assert len(out["results"]) == 3
    only = crawler.crawl(ROOT + "/", depth=0, limit=10, delay=0, fetcher=FakeFetcher())
    assert [r["url"] for r in only["results"]] == [f"{ROOT}/"]


def test_robots_crawl_delay_and_disallowed_start() -> None:
    slept: list[float] = []
    fetch = FakeFetcher(robots="User-agent: hermes_nb\nCrawl-delay: 2\nDisallow: /b\n")
    out = crawler.crawl(ROOT + "/", depth=1, limit=10, delay=0.1, fetcher=fetch, sleep=slept.append)
    assert [r["url"] for r in out["results"]] == [f"{ROOT}/", f"{ROOT}/a"]
    assert slept == [2.0]
    with pytest.raises(ContentFetchError, match="robots.txt"):
        crawler.crawl(ROOT + "/b", fetcher=FakeFetcher(robots="User-agent: *\nDisallow: /b\n"), delay=0)


def test_robots_status_semantics() -> None:
    with pytest.raises(ContentFetchError, match="disallows"):
        crawler.crawl(ROOT + "/", fetcher=FakeFetcher(robots_status=403), delay=0)
    out = crawler.crawl(ROOT + "/", depth=1, limit=10, delay=0, fetcher=FakeFetcher(robots_status=404))
    assert f"{ROOT}/a" in [r["url"] for r in out["results"]]
    ignored = crawler.crawl(ROOT + "/a", depth=1, delay=0, fetcher=FakeFetcher(robots_status=403),
                            respect_robots=False)
    assert f"{ROOT}/secret/x" in [r["url"] for r in ignored["results"]]


def test_later_failures_are_per_page_errors_but_start_failure_raises() -> None:
    SITE["/flaky"] = page('<a href="/boom">b</a> <a href="/nope">n</a>', "Flaky")
    try:
        out = crawler.crawl(ROOT + "/flaky", depth=1, delay=0, fetcher=FakeFetcher())
    finally:
        del SITE["/flaky"]
    by_url = {r["url"]: r for r in out["results"]}
    assert by_url[f"{ROOT}/boom"]["error_code"] == "TIMEOUT"
    assert by_url[f"{ROOT}/nope"]["error_code"] == "CONTENT_FETCH_FAILED"
    with pytest.raises(ContentFetchError):
        crawler.crawl(ROOT + "/nope", delay=0, fetcher=FakeFetcher())
    with pytest.raises(InvalidInputError):
        crawler.crawl("file:///etc/passwd", fetcher=FakeFetcher())


def test_default_delay_comes_from_config() -> None:
    config.set("web.crawl_delay", 0.75)
    slept: list[float] = []
    crawler.crawl(ROOT + "/", depth=1, limit=2, fetcher=FakeFetcher(), sleep=slept.append)
    assert slept == [0.75]


def test_pages_are_read_with_their_figures_when_web_extract_images_is_on() -> None:
    first = "The harbour was quiet in the morning and the boats had not yet gone out to sea."
    second = "By noon the wind had turned and every crew was hauling nets against the swell."
    body = f'<p>{first}</p><img src="/quay.jpg" alt="Quay"><p>{second}</p>'
    figure = f"<html><body><main>{body}</main></body></html>"

    def fetcher(url: str, **kw: object) -> FetchedContent:
        if url.endswith("/robots.txt"):
            return _fc(url, url, b"", "text/plain")
        return _fc(url, url, figure.encode(), "text/html")

    (plain,) = crawler.crawl(ROOT + "/", depth=0, delay=0, fetcher=fetcher)["results"]
    assert "![" not in plain["content"]
    load_plugins()  # the key is the direct plugin's setting
    config.set("web.extract.images", True)
    (read,) = crawler.crawl(ROOT + "/", depth=0, delay=0, fetcher=fetcher)["results"]
    assert f"{first}\n\n![Quay]({ROOT}/quay.jpg)\n\n{second}" in read["content"]
    (left_out,) = crawler.crawl(ROOT + "/", depth=0, delay=0, fetcher=fetcher, images=False)["results"]
    assert left_out["content"] == plain["content"]  # the call's choice (hn.crawl(images=False)) wins
    config.set("web.extract.images", False)
    (asked,) = crawler.crawl(ROOT + "/", depth=0, delay=0, fetcher=fetcher, images=True)["results"]
    assert asked["content"] == read["content"]


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator(seed=2) as server, use_emulator(server):
        yield server


def test_against_the_emulator_site(emu: Emulator) -> None:
    out = crawler.crawl(emu.page_url("/site/"), depth=1, limit=30, delay=0)
    urls = [r["url"] for r in out["results"]]
    assert urls[0] == emu.page_url("/site/")
    assert emu.page_url("/site/articles/hello-world.html") in urls
    assert not any("/private/" in u for u in urls)  # robots.txt: Disallow: /site/private/
    assert not any(r.path.startswith("/site/private") for r in emu.requests)
    # documents are read like pages (not followed for links); media and binaries are never fetched
    by_url = {r["url"]: r for r in out["results"]}
    kinds = {u.rsplit("/", 1)[-1]: r["metadata"]["content_type"] for u, r in by_url.items() if r["content"]}
    assert kinds["plain.txt"] == "text/plain" and kinds["readme.md"] == "text/markdown"
    assert kinds["feed.rss"] == "application/rss+xml"
    assert not any(r.path.endswith((".png", ".jpg", ".zip", ".bin")) for r in emu.requests)
    broken = [r for r in out["results"] if r["url"].endswith("/site/missing.html")]
    assert broken and broken[0]["error_code"] == "CONTENT_FETCH_FAILED"
    assert emu.requests[0].path == "/robots.txt"


def test_documents_are_read_but_not_followed_and_unreadable_types_are_skipped() -> None:
    class DocsFetcher(FakeFetcher):
        def __call__(self, url: str, **kw: object) -> FetchedContent:
            if url == ROOT + "/":
                self.calls.append(url)
                links = '<a href="/doc.pdf">pdf</a> <a href="/a">A</a> <a href="/notes.md">notes</a>'
                return _fc(url, url, page(links, "Home").encode(), "text/html")
            if url.endswith("/notes.md"):
                self.calls.append(url)
                return _fc(url, url, b"# Notes\n\nSee [far](/far).", "text/markdown")
            if url.endswith("/doc.pdf"):
                self.calls.append(url)
                return _fc(url, url, b"%PDF-1.4 not really", "application/pdf")
            if url.endswith("/a"):
                self.calls.append(url)
                return _fc(url, url, b"\x89PNG\r\n\x1a\n", "image/png")  # an image behind a page link
            return super().__call__(url, **kw)

    fetcher = DocsFetcher()
    out = crawler.crawl(ROOT + "/", depth=2, limit=20, delay=0, fetcher=fetcher)
    by_url = {r["url"]: r for r in out["results"]}
    assert by_url[ROOT + "/notes.md"]["content"].startswith("# Notes")
    assert ROOT + "/far" not in fetcher.calls  # documents are read, not followed for links
    assert by_url[ROOT + "/doc.pdf"]["error_code"] == "CONTENT_FETCH_FAILED"  # damaged: a per-page error
    assert ROOT + "/a" not in by_url  # an image behind a page link is skipped...
    assert ROOT + "/a/deep" not in fetcher.calls  # ...and not followed
