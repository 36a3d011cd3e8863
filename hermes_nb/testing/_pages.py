"""A small deterministic website under ``/site/`` for extract and crawl tests (every content type)."""

from __future__ import annotations

import html
import io
import random
import re
import zipfile
from urllib.parse import urlsplit

from hermes_nb.testing import _images
from hermes_nb.testing._wire import Api, Call, Response, retry_after_header

__all__ = ["APIS", "SiteApi", "site_response", "read_url", "html_to_markdown", "words"]

_VOCAB_TEXT = """data model notebook python search image kernel provider plugin query result cache store
vector graph signal latency crawler archive index token budget cluster pipeline schema table column widget
render review sample metric feature test record batch stream"""
_VOCAB = tuple(_VOCAB_TEXT.split())

ARTICLES: dict[str, tuple[str, str, str]] = {
    # slug: (title, author, date)
    "hello-world": ("Hello, World: a first notebook", "Ada Lovelace", "2024-01-15"),
    "data-science": ("Data science with plain Python", "Grace Hopper", "2024-03-02"),
    "python-tips": ("Ten Python tips for notebooks", "Guido Example", "2024-05-20"),
}
ROBOTS_TXT = "User-agent: *\nDisallow: /site/private/\n"


def words(rng: random.Random, count: int) -> str:
    """``count`` words of the site's vocabulary drawn from ``rng``."""
    return " ".join(rng.choice(_VOCAB) for _ in range(count))


def _paragraphs(call: Call, key: str, count: int, length: int = 40) -> list[str]:
    rng = call.emu.rng("page", key)
    out = []
    for _ in range(count):
        text = words(rng, length)
        out.append(text[0].upper() + text[1:] + ".")
    return out


def _html_page(
    title: str, body: str, *, author: str = "", date: str = "", lang: str = "en", head: str = ""
) -> str:
    meta = ""
    if author:
        meta += f'<meta name="author" content="{html.escape(author)}">\n'
    if date:
        meta += f'<meta name="date" content="{date}">\n'
        meta += f'<meta property="article:published_time" content="{date}">\n'
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n{meta}{head}</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _article(call: Call, slug: str) -> Response:
    title, author, date = ARTICLES.get(slug, (slug.replace("-", " ").title(), "Emu Writer", "2024-06-01"))
    paras = "\n".join(f"<p>{p}</p>" for p in _paragraphs(call, slug, 6))
    others = "".join(
        f'<li><a href="/site/articles/{s}.html">{html.escape(t[0])}</a></li>'
        for s, t in ARTICLES.items()
        if s != slug
    )
    body = (
        f'<nav><a href="/site/">Home</a></nav>\n<article>\n<h1>{html.escape(title)}</h1>\n'
        f'<p class="byline">By {html.escape(author)}, {date}</p>\n{paras}\n</article>\n'
        f"<aside><h2>Related</h2><ul>{others}"
        '<li><a href="/site/private/secret.html">Staff only</a></li></ul></aside>'
    )
    return Response.text(
        _html_page(title, body, author=author, date=date), content_type="text/html; charset=utf-8"
    )


def _index() -> str:
    links = [(f"/site/articles/{s}.html", t[0]) for s, t in ARTICLES.items()]
    links += [
        ("/site/long.html", "A very long article"),
        ("/site/js-heavy.html", "Interactive app"),
        ("/site/plain.txt", "Plain text notes"),
        ("/site/readme.md", "Readme"),
        ("/site/feed.rss", "RSS feed"),
        ("/site/paper.pdf", "Paper (PDF)"),
        ("/site/private/secret.html", "Private area"),
        ("/site/missing.html", "A broken link"),
        ("https://example.com/elsewhere", "Another site"),
    ]
    items = "\n".join(f'<li><a href="{href}">{html.escape(text)}</a></li>' for href, text in links)
    return _html_page(
        "Emulated site — index",
        f"<h1>Emulated site</h1>\n<ul>\n{items}\n</ul>",
        author="Emu Team",
        date="2024-01-01",
    )


def _long(call: Call) -> Response:
    paras = _paragraphs(call, "long", 320, 60)
    body = (
        "<article><h1>A very long article</h1>\n"
        + "\n".join(
            f"<h2>Section {i + 1}</h2>\n<p>{p}</p>" if i % 20 == 0 else f"<p>{p}</p>"
            for i, p in enumerate(paras)
        )
        + "</article>"
    )
    page = _html_page("A very long article", body, author="Emu Team", date="2024-02-02")
    return Response.text(page, content_type="text/html; charset=utf-8")


def _js_heavy() -> str:
    scripts = "\n".join(f'<script src="/static/bundle{i}.js"></script>' for i in range(5))
    inline = '<script>window.__STATE__ = {"ready": false};</script>'
    return _html_page(
        "Interactive app",
        '<div id="root"></div>\n<noscript>Enable JavaScript.</noscript>',
        head=scripts + "\n" + inline + "\n",
    )


def _pdf() -> bytes:
    """A one-page PDF with real text, built by hand so the bytes never change."""
    text = "Emulated paper. Deterministic PDF text for extract tests."
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Title (Emulated paper) /Author (Emu Team) >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        info = zipfile.ZipInfo("hello.txt", date_time=(2024, 1, 1, 0, 0, 0))
        archive.writestr(info, "hello from the emulator\n")
    return out.getvalue()


_RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Emulated feed</title><link>/site/</link>
<description>Articles of the emulated site</description>
{items}
</channel></rss>
"""
_ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Emulated feed</title><id>urn:emu:feed</id>
<updated>2024-06-01T00:00:00Z</updated>
{entries}
</feed>
"""


def _feeds(kind: str) -> str:
    if kind == "rss":
        items = "\n".join(
            f"<item><title>{html.escape(t)}</title><link>/site/articles/{s}.html</link>"
            f"<pubDate>{d}</pubDate><author>{html.escape(a)}</author></item>"
            for s, (t, a, d) in ARTICLES.items()
        )
        return _RSS.format(items=items)
    entries = "\n".join(
        f'<entry><title>{html.escape(t)}</title><link href="/site/articles/{s}.html"/>'
        f"<id>urn:emu:{s}</id><updated>{d}T00:00:00Z</updated><author><name>{html.escape(a)}</name></author></entry>"
        for s, (t, a, d) in ARTICLES.items()
    )
    return _ATOM.format(entries=entries)


def _not_found(path: str) -> Response:
    page = _html_page("404 Not Found", f"<h1>Not Found</h1><p>{html.escape(path)} does not exist.</p>")
    return Response.text(page, 404, "text/html; charset=utf-8")


def site_response(call: Call, path: str) -> Response:
    """The answer for ``path`` of the emulated site (also used by Tavily extract and Jina)."""
    html_type = "text/html; charset=utf-8"
    if path == "/robots.txt":
        return Response.text(ROBOTS_TXT)
    if path in ("/site", "/site/", "/site/index.html"):
        return Response.text(_index(), content_type=html_type)
    match = re.fullmatch(r"/site/articles/([a-z0-9-]{1,80})\.html", path)
    if match:
        return _article(call, match.group(1))
    match = re.fullmatch(r"/site/redirect/hop/(\d{1,2})", path)
    if match:
        hops = int(match.group(1))
        target = f"/site/redirect/hop/{hops - 1}" if hops > 1 else "/site/articles/hello-world.html"
        return Response(302, b"", "text/plain", {"Location": target})
    simple: dict[str, Response] = {
        "/site/redirect/start": Response(302, b"", "text/plain", {"Location": "/site/redirect/hop/2"}),
        "/site/redirect/loop": Response(302, b"", "text/plain", {"Location": "/site/redirect/loop"}),
        "/site/redirect-private": Response(302, b"", "text/plain", {"Location": "http://10.0.0.1/"}),
        "/site/redirect/no-location": Response(302, b"", "text/plain"),
    }
    if path in simple:
        return simple[path]
    if path == "/site/long.html":
        return _long(call)
    if path == "/site/js-heavy.html":
        return Response.text(_js_heavy(), content_type=html_type)
    if path == "/site/plain.txt":
        return Response.text("Plain text notes\n\n" + "\n".join(_paragraphs(call, "plain", 3)) + "\n")
    if path == "/site/readme.md":
        body = "# Emulated readme\n\nSome *Markdown* with a [link](/site/).\n\n- one\n- two\n"
        return Response.text(body, content_type="text/markdown; charset=utf-8")
    if path == "/site/data.json":
        return Response.json({"name": "emulated", "items": [{"id": i, "value": i * i} for i in range(5)]})
    if path == "/site/data.csv":
        rows = "\n".join(f"{i},item {i},{i * 1.5}" for i in range(5))
        return Response.text("id,name,price\n" + rows + "\n", content_type="text/csv; charset=utf-8")
    if path == "/site/feed.rss":
        return Response.text(_feeds("rss"), content_type="application/rss+xml; charset=utf-8")
    if path == "/site/feed.atom":
        return Response.text(_feeds("atom"), content_type="application/atom+xml; charset=utf-8")
    if path == "/site/paper.pdf":
        return Response(200, _pdf(), "application/pdf")
    if path == "/site/cp1252.html":
        page = _html_page("Café crème — déjà vu", "<h1>Café crème</h1><p>Naïve “quotes” and € signs.</p>")
        page = page.replace('<meta charset="utf-8">\n', "")
        return Response(200, page.encode("cp1252"), "text/html; charset=windows-1252")
    if path == "/site/sjis.html":
        page = _html_page("日本語のページ", "<h1>日本語</h1><p>これはシフトJISのページです。</p>", lang="ja")
        page = page.replace('<meta charset="utf-8">', '<meta charset="shift_jis">')
        return Response(200, page.encode("shift_jis"), "text/html")
    if path == "/site/archive.zip":
        return Response(200, _zip(), "application/octet-stream")
    if path == "/site/image.png":
        return Response(200, _images.render("site-image", 64, 48, "png"), "image/png")
    if path == "/site/private/secret.html":
        page = _html_page("Private", "<h1>Private</h1><p>Crawlers must not read this page.</p>")
        return Response.text(page, content_type=html_type)
    return _not_found(path)


class SiteApi:
    """``/site/...`` and ``/robots.txt``: no auth; status faults answer a plain page."""

    name = "site"

    def handle(self, call: Call) -> Response:
        if call.empty:
            return Response(200, b"", "text/html; charset=utf-8")
        return site_response(call, call.request.path)

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        headers = retry_after_header(retry_after)
        return Response.text(f"<h1>Error {status}</h1>", status, "text/html; charset=utf-8", headers)


def html_to_markdown(page: str) -> tuple[str, str]:
    """``(title, markdown)`` of an HTML page — a rough converter, enough for Jina/Tavily answers."""
    title_match = re.search(r"<title>(.*?)</title>", page, re.S | re.I)
    title = html.unescape(title_match.group(1).strip()) if title_match else ""
    body = re.sub(r"<(script|style|head|nav|noscript)\b.*?</\1>", "", page, flags=re.S | re.I)
    body = re.sub(
        r"<h([1-6])[^>]*>(.*?)</h\1>",
        lambda m: "\n" + "#" * int(m.group(1)) + " " + m.group(2) + "\n",
        body,
        flags=re.S | re.I,
    )
    body = re.sub(r"<a [^>]*href=\"([^\"]*)\"[^>]*>(.*?)</a>", r"[\2](\1)", body, flags=re.S | re.I)
    body = re.sub(r"</?(p|li|ul|article|aside|div)[^>]*>", "\n", body, flags=re.I)
    body = html.unescape(re.sub(r"<[^>]+>", "", body))
    lines = [line.strip() for line in body.splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return title, text


def read_url(call: Call, url: str) -> tuple[str, str]:
    """``(title, markdown)`` for ``url`` as a reader service would see it; LookupError if it fails.

    URLs of this emulator come from the site; any other http(s) URL gets a generated page, except
    hosts under ``.invalid`` and ``/missing`` paths, which fail (for per-URL failure tests).
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LookupError(f"Invalid URL: {url}")
    if f"{parts.scheme}://{parts.netloc}" == call.emu.url:
        response = site_response(call, parts.path or "/")
        if response.status >= 300:
            raise LookupError(f"Failed to fetch url: HTTP {response.status}")
        if response.content_type.startswith("text/html"):
            return html_to_markdown(response.body.decode("utf-8", "replace"))
        if response.content_type.startswith(("text/", "application/json")):
            return parts.path.rsplit("/", 1)[-1], response.body.decode("utf-8", "replace")
        raise LookupError(f"Failed to fetch url: unsupported content type {response.content_type}")
    if parts.hostname.endswith(".invalid") or parts.path.startswith("/missing"):
        raise LookupError(f"Failed to fetch url: {parts.hostname} could not be reached")
    rng = call.emu.rng("url", url)
    title = words(rng, 4).title()
    return title, f"# {title}\n\n" + "\n\n".join(_paragraphs(call, url, 3))


APIS: list[Api] = [SiteApi()]
