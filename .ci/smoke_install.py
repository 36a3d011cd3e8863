"""Smoke test of an installed hermes_nb: a page served on loopback is extracted as Markdown, not HTML.

Run with the interpreter of a venv where ``pip install .`` was done by that venv's own pip (see
``.ci/run``). It must not import the source tree: run it from outside the repository.
"""

from __future__ import annotations

import http.server
import os
import sys
import tempfile
import threading

PAGE = b"""<!doctype html><html lang="en"><head><title>Smoke page</title></head><body>
<article><h1>Smoke page</h1>
<p>The installed package turns this paragraph into Markdown text, without any markup left in it.</p>
<p>A second paragraph, long enough for the main-text extractor to keep it as the article body.</p>
<ul><li>first point</li><li>second point</li></ul></article></body></html>"""


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


def main() -> int:
    os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="hermes-nb-smoke-")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        import hermes_nb as hn

        if "site-packages" not in (hn.__file__ or ""):
            print(f"smoke: hermes_nb imported from {hn.__file__}, not from an install", file=sys.stderr)
            return 1
        hn.config.set("security.allow_private_urls", True)
        url = f"http://127.0.0.1:{server.server_address[1]}/page"
        result = hn.extract(url, backend="direct")
        page = result.pages[0]
        problems = []
        if page.error:
            problems.append(f"extraction failed: {page.error}")
        if "</" in page.content or "<p>" in page.content or "<html" in page.content.lower():
            problems.append("the content is markup, not Markdown")
        if "turns this paragraph into Markdown" not in page.content:
            problems.append("the paragraph text is missing")
        if page.title != "Smoke page":
            problems.append(f"title {page.title!r} is not the page's title")
        if problems:
            report = "; ".join(problems)
            print(f"smoke: {report}\n--- content ---\n{page.content[:500]}", file=sys.stderr)
            return 1
        print(f"smoke: ok, {url} extracted as {len(page.content)} characters of Markdown")
        return 0
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
