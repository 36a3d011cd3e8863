"""Guarded fetch: pinned DNS on real loopback sockets, redirects, rebinding, caps, type and charset."""

from __future__ import annotations

import asyncio
import gzip
import http.server
import threading
from collections.abc import Iterator

import httpx
import pytest

from hermes_nb import config
from hermes_nb.errors import ContentBlockedError, ContentFetchError, InvalidInputError, TimeoutError_
from hermes_nb.net import fetch
from hermes_nb.net._sniff import detect_charset, detect_content_type

PUBLIC_IP = "127.0.0.1"  # plays a public address: allowed through allow_networks in these tests
PRIVATE_IP = "127.0.0.2"  # a private listener that must never be reached
ALLOW = ["127.0.0.1/32"]


class _Server:
    def __init__(self, host: str, routes: dict) -> None:
        self.hits: list[tuple[str, dict[str, str]]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.hits.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                status, headers, body = routes.get(self.path.split("?")[0], (404, {}, b"missing"))
                if callable(body):
                    body = body(self)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer((host, 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[_Server, _Server]]:
    private = _Server(PRIVATE_IP, {"/": (200, {"Content-Type": "text/plain"}, b"internal secrets")})
    pp = private.port
    big = gzip.compress(b"\0" * (40 * 1024 * 1024))
    routes = {
        "/page": (200, {"Content-Type": "text/html"},
                  "<html><head><meta charset='iso-8859-1'></head><body>café</body></html>".encode("latin-1")),
        "/host": (200, {"Content-Type": "text/plain; charset=utf-8"}, lambda h: h.headers["Host"].encode()),
        "/to-private-ip": (302, {"Location": f"http://{PRIVATE_IP}:{pp}/"}, b""),
        "/to-private-name": (301, {"Location": f"http://private.test:{pp}/"}, b""),
        "/to-localhost": (307, {"Location": f"http://localhost:{pp}/"}, b""),
        "/to-decimal": (308, {"Location": f"http://2130706434:{pp}/"}, b""),
        "/to-file": (302, {"Location": "file:///etc/passwd"}, b""),
        "/again": (302, {"Location": "/page"}, b""),  # same host: the name is resolved again
        "/no-location": (302, {}, b""),
        "/gone": (404, {"Content-Type": "text/plain"}, b"nope"),
        "/bomb": (200, {"Content-Type": "text/plain", "Content-Encoding": "gzip"}, big),
        "/blob": (200, {"Content-Type": "application/octet-stream"}, b"%PDF-1.7\n" + b"x" * 3000),
    }
    public = _Server(PUBLIC_IP, routes)
    yield public, private
    public.close()
    private.close()


def resolver_map(mapping: dict[str, list[list[str]]]):
    """host -> successive answers (the last repeats); records every lookup."""
    calls: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        answers = mapping[host]
        return answers[min(calls.count(host) - 1, len(answers) - 1)]

    resolve.calls = calls  # type: ignore[attr-defined]  # test helper
    return resolve


RESOLVE = {"public.test": [[PUBLIC_IP]], "private.test": [[PRIVATE_IP]], "localhost": [[PRIVATE_IP]]}


def get(servers, path: str, **kw) -> fetch.FetchedContent:
    public, _ = servers
    kw.setdefault("resolver", resolver_map(RESOLVE))
    return fetch.fetch(f"http://public.test:{public.port}{path}", allow_networks=ALLOW, **kw)


def test_fetch_connects_to_pinned_address_with_original_host(servers) -> None:
    public, private = servers
    resolver = resolver_map(RESOLVE)
    got = get(servers, "/host", resolver=resolver)
    # public.test exists only in our resolver, so reaching the server proves the pinned IP was used
    assert got.text == f"public.test:{public.port}"
    assert resolver.calls == ["public.test"]  # type: ignore[attr-defined]  # set by the helper above
    path, headers = public.hits[-1]
    assert headers["accept"] == fetch.DEFAULT_ACCEPT
    assert headers["user-agent"].startswith("hermes_nb/")
    assert got.status == 200 and got.final_url == f"http://public.test:{public.port}/host"
    assert got.content_type == "text/plain" and got.charset == "utf-8" and not got.truncated


def test_meta_charset_is_honoured(servers) -> None:
    got = get(servers, "/page")
    assert got.charset == "cp1252" and "café" in got.text and got.content_type == "text/html"


@pytest.mark.parametrize("path", ["/to-private-ip", "/to-private-name", "/to-localhost", "/to-decimal"])
def test_redirect_to_private_is_blocked_and_private_listener_gets_nothing(servers, path: str) -> None:
    _, private = servers
    before = len(private.hits)
    with pytest.raises(ContentBlockedError):
        get(servers, path)
    assert len(private.hits) == before == 0


def test_redirect_to_other_scheme_is_refused(servers) -> None:
    with pytest.raises(InvalidInputError):
        get(servers, "/to-file")


def test_dns_rebinding_is_caught_on_every_hop(servers) -> None:
    public, private = servers
    # first answer "public", every later answer private: the second hop re-resolves and is refused
    resolver = resolver_map({"public.test": [[PUBLIC_IP], [PRIVATE_IP]]})
    with pytest.raises(ContentBlockedError):
        get(servers, "/again", resolver=resolver)
    assert resolver.calls == ["public.test", "public.test"]  # type: ignore[attr-defined]  # set by the helper above
    assert len(private.hits) == 0


def test_rebinding_answer_mixing_public_and_private_is_refused(servers) -> None:
    _, private = servers
    with pytest.raises(ContentBlockedError):
        get(servers, "/page", resolver=resolver_map({"public.test": [[PUBLIC_IP, PRIVATE_IP]]}))
    assert len(private.hits) == 0


def test_missing_location_and_http_errors(servers) -> None:
    with pytest.raises(ContentFetchError) as info:
        get(servers, "/no-location")
    assert "Location" in str(info.value)
    with pytest.raises(ContentFetchError) as info:
        get(servers, "/gone")
    assert "HTTP 404 Not Found for" in str(info.value) and info.value.status == 404


def test_gzip_bomb_is_cut_at_decoded_size(servers) -> None:
    got = get(servers, "/bomb", max_bytes=1024 * 1024)
    assert got.truncated and len(got.content) == 1024 * 1024


def test_size_cap_truncates_and_magic_beats_weak_header(servers) -> None:
    got = get(servers, "/blob", max_bytes=100)
    assert got.truncated and len(got.content) == 100
    assert got.content_type == "application/pdf" and got.charset is None
    whole = get(servers, "/blob")
    assert not whole.truncated and len(whole.content) == 3009


def test_connection_refused_and_dns_failure(servers) -> None:
    with pytest.raises(ContentFetchError):
        fetch.fetch("http://public.test:1/", resolver=resolver_map(RESOLVE), allow_networks=ALLOW)
    with pytest.raises(ContentFetchError):
        fetch.fetch("http://nowhere.test/", resolver=lambda h, p: [])


def test_private_urls_allowed_by_config(servers) -> None:
    _, private = servers
    config.set("security.allow_private_urls", True)
    got = fetch.fetch(f"http://{PRIVATE_IP}:{private.port}/")
    assert got.text == "internal secrets"
    private.hits.clear()


def test_afetch_twin(servers) -> None:
    public, private = servers
    got = asyncio.run(fetch.afetch(f"http://public.test:{public.port}/host", resolver=resolver_map(RESOLVE),
                                   allow_networks=ALLOW))
    assert got.text == f"public.test:{public.port}"
    with pytest.raises(ContentBlockedError):
        asyncio.run(fetch.afetch(f"http://public.test:{public.port}/to-private-name",
                                 resolver=resolver_map(RESOLVE), allow_networks=ALLOW))
    cut = asyncio.run(fetch.afetch(f"http://public.test:{public.port}/bomb", max_bytes=5000,
                                   resolver=resolver_map(RESOLVE), allow_networks=ALLOW))
    assert cut.truncated and len(cut.content) == 5000
    assert len(private.hits) == 0


# -- through a recording transport ----------------------------------------------------------------


def recording(routes: dict[str, httpx.Response]):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        canned = routes[request.headers["host"] + request.url.path]
        return httpx.Response(canned.status_code, headers=canned.headers, content=canned.content)

    return httpx.MockTransport(handler), seen


PUBLIC_DNS = {"example.com": [["93.184.216.34"]], "other.example": [["8.8.4.4"]],
              "v6.example": [["2606:2800:220:1::1"]]}


def test_pinned_request_targets_the_checked_ip_with_sni() -> None:
    transport, seen = recording({"example.com/a": httpx.Response(200, text="hi")})
    got = fetch.fetch("https://example.com/a", resolver=resolver_map(PUBLIC_DNS), transport=transport)
    req = seen[0]
    assert req.url.host == "93.184.216.34" and req.url.scheme == "https"
    assert req.headers["host"] == "example.com" and req.extensions["sni_hostname"] == "example.com"
    assert got.final_url == "https://example.com/a" and got.text == "hi"


def test_ipv6_pin_and_next_address_after_connect_failure() -> None:
    attempts: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        attempts.append(request.url.host)
        if request.url.host == "8.8.4.4":
            raise httpx.ConnectError("unreachable")
        return httpx.Response(200, text="ok")

    dns = {"dual.example": [["8.8.4.4", "2606:2800:220:1::1"]]}
    got = fetch.fetch("http://dual.example:8080/", resolver=resolver_map(dns),
                      transport=httpx.MockTransport(handler))
    assert attempts == ["8.8.4.4", "2606:2800:220:1::1"] and got.text == "ok"


def test_redirect_chain_limits_and_cross_origin_header_drop() -> None:
    routes = {f"example.com/r{i}": httpx.Response(302, headers={"Location": f"/r{i + 1}"}) for i in range(7)}
    routes["example.com/r4"] = httpx.Response(302, headers={"Location": "https://other.example/end"})
    routes["other.example/end"] = httpx.Response(200, text="done")
    transport, seen = recording(routes)
    hdrs = {"Authorization": "Bearer tok-123456", "Cookie": "a=b", "X-Keep": "1"}
    got = fetch.fetch("http://example.com/r0", resolver=resolver_map(PUBLIC_DNS), transport=transport,
                      headers=hdrs)
    expected = [f"http://example.com/r{i}" for i in range(1, 5)] + ["https://other.example/end"]
    assert got.redirects == expected
    assert got.final_url == "https://other.example/end" and got.text == "done"
    assert seen[1].headers["authorization"] == "Bearer tok-123456"  # same origin keeps it
    last = seen[-1]
    assert "authorization" not in last.headers and "cookie" not in last.headers
    assert last.headers["x-keep"] == "1"
    routes["example.com/r4"] = httpx.Response(302, headers={"Location": "/r5"})
    with pytest.raises(ContentFetchError) as info:
        fetch.fetch("http://example.com/r0", resolver=resolver_map(PUBLIC_DNS), transport=transport)
    assert "too many redirects" in str(info.value)


def test_exactly_five_redirects_is_fine() -> None:
    routes = {f"example.com/r{i}": httpx.Response(301, headers={"Location": f"/r{i + 1}"}) for i in range(5)}
    routes["example.com/r5"] = httpx.Response(200, text="end")
    transport, seen = recording(routes)
    got = fetch.fetch("http://example.com/r0", resolver=resolver_map(PUBLIC_DNS), transport=transport)
    assert got.text == "end" and len(got.redirects) == 5 and len(seen) == 6


def test_timeouts_and_one_deadline_for_the_chain() -> None:
    transport = httpx.MockTransport(lambda r: (_ for _ in ()).throw(httpx.ReadTimeout("slow")))
    with pytest.raises(TimeoutError_):
        fetch.fetch("http://example.com/", resolver=resolver_map(PUBLIC_DNS), transport=transport)

    now = [0.0]
    fetch.set_clock(lambda: now[0])

    def slow(request: httpx.Request) -> httpx.Response:
        now[0] += 4.0
        return httpx.Response(302, headers={"Location": "/next"})

    with pytest.raises(TimeoutError_) as info:
        fetch.fetch("http://example.com/", resolver=resolver_map(PUBLIC_DNS),
                    transport=httpx.MockTransport(slow), deadline=10)
    assert "deadline" in str(info.value) and now[0] == 12.0


def test_module_transport_hook_and_reset() -> None:
    transport, seen = recording({"example.com/": httpx.Response(200, text="x")})
    fetch.set_transport(transport)
    assert fetch.fetch("http://example.com/", resolver=resolver_map(PUBLIC_DNS)).text == "x"
    assert asyncio.run(fetch.afetch("http://example.com/", resolver=resolver_map(PUBLIC_DNS))).text == "x"
    assert len(seen) == 2


# -- detection tables ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "header", "body", "expected"),
    [
        ("https://x.test/a", "text/html; charset=utf-8", b"%PDF-1.4", "text/html"),
        ("https://x.test/a.html", "application/pdf", b"<html>", "application/pdf"),
        ("https://x.test/doc.pdf", "application/octet-stream", b"junk", "application/pdf"),
        ("https://x.test/data.json", "text/plain", b"{}", "application/json"),
        ("https://x.test/notes.md", "", b"# hi", "text/markdown"),
        ("https://x.test/table.csv", "text/plain", b"a,b", "text/csv"),
        ("https://x.test/feed.rss", "", b"<rss/>", "application/rss+xml"),
        ("https://x.test/main.py", "application/octet-stream", b"print(1)", "text/plain"),
        ("https://x.test/Dockerfile", "", b"FROM x", "text/plain"),
        ("https://x.test/file", "application/octet-stream", b"\x89PNG\r\n\x1a\n....", "image/png"),
        ("https://x.test/file", "", b"\xff\xd8\xff\xe0", "image/jpeg"),
        ("https://x.test/file", "text/plain", b"GIF89a...", "image/gif"),
        ("https://x.test/file", "", b"RIFF\0\0\0\0WEBPVP8 ", "image/webp"),
        ("https://x.test/file", "", b"\0\0\0\x18ftypmp42", "video/mp4"),
        ("https://x.test/file", "", b"\0\0\0\x18ftypavif", "image/avif"),
        ("https://x.test/file", "", b"PK\x03\x04rest", "application/zip"),
        ("https://x.test/file", "", b"\x1f\x8b\x08\0", "application/gzip"),
        ("https://x.test/file", "", b"\x7fELF\x02", "application/x-executable"),
        ("https://x.test/file", "", b"OggS\0", "audio/ogg"),
        ("https://x.test/file", "", b"  <!DOCTYPE html><html>", "text/html"),
        ("https://x.test/file", "text/x-rst", b"Title\n=====", "text/x-rst"),
        ("https://x.test/file", "", b"just words", "text/plain"),
        ("https://x.test/file", "", b"\0\x01\x02\x03binary", "application/octet-stream"),
        ("https://x.test/img", "image/png", b"\x89PNG", "image/png"),
        ("https://x.test/x.png?w=1", "", b"\x89PNG", "image/png"),
    ],
)
def test_content_type_detection(url: str, header: str, body: bytes, expected: str) -> None:
    assert detect_content_type(url, header, body) == expected


@pytest.mark.parametrize(
    ("header", "body", "mime", "expected"),
    [
        ("text/html; charset=Shift_JIS", b"<html>", "text/html", "cp932"),
        ("text/html; charset=iso-8859-1", b"<html>", "text/html", "cp1252"),
        ("text/html; charset=US-ASCII", b"<html>", "text/html", "cp1252"),
        ("text/html", b"<meta charset=gb2312>", "text/html", "gb18030"),
        ("text/html", b"<meta charset=euc-kr>", "text/html", "cp949"),
        ("text/html", b"<meta charset=tis-620>", "text/html", "cp874"),
        ("text/html", b"<meta charset=x-mac-roman>", "text/html", "mac-roman"),
        ("text/html", b'<meta http-equiv="Content-Type" content="text/html; charset=UTF-16">', "text/html",
         "utf-8"),
        ("text/html; charset=utf-16", b"<\0h\0", "text/html", "utf-16-le"),
        ("text/html; charset=iso-8859-1", b"\xef\xbb\xbf<p>\xc3\xa9", "text/html", "utf-8"),
        ("text/html; charset=\"windows-1252\"", b"<html>", "text/html", "windows-1252"),
        ("text/html; charset=bogus-9", b"<meta charset=koi8-r>", "text/html", "koi8-r"),
        ("text/plain", b"\xef\xbb\xbfhello", "text/plain", "utf-8"),
        ("text/plain", b"\xff\xfeh\0i\0", "text/plain", "utf-16-le"),
        ("text/html", b'<meta http-equiv="Content-Type" content="text/html; charset=euc-jp">', "text/html",
         "euc-jp"),
        ("application/xml", b'<?xml version="1.0" encoding="ISO-8859-2"?><a/>', "application/xml",
         "iso-8859-2"),
        ("text/plain", "plain ascii and ünïcödé".encode(), "text/plain", "utf-8"),
        ("image/png", b"\x89PNG", "image/png", None),
        ("application/pdf", b"%PDF", "application/pdf", None),
    ],
)
def test_charset_detection(header: str, body: bytes, mime: str, expected: str | None) -> None:
    assert detect_charset(header, body, mime) == expected


def test_charset_detection_falls_back_to_statistics() -> None:
    text = "Příliš žluťoučký kůň úpěl ďábelské ódy. " * 20
    body = text.encode("cp1250")
    charset = detect_charset("text/plain", body, "text/plain")
    assert charset is not None and body.decode(charset) == text


def test_text_property_decodes_and_strips_bom() -> None:
    item = fetch.FetchedContent("u", "u", 200, {}, b"\xef\xbb\xbfhi", "text/plain", "utf-8", False)
    assert item.text == "hi"
    odd = fetch.FetchedContent("u", "u", 200, {}, b"caf\xe9", "text/plain", None, False)
    assert odd.text == "caf\ufffd"
    assert "4 bytes" in repr(odd)
