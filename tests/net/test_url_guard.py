"""SSRF guard: a table of hostile URLs, address unwrapping, numeric spellings, secrets, config switch."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from hermes_nb import config
from hermes_nb.errors import ContentBlockedError, ContentFetchError, InvalidInputError
from hermes_nb.net import url_guard
from hermes_nb.net.url_guard import blocked_reason, check_url

PUBLIC = "93.184.216.34"


def resolve_to(*answers: str):
    calls: list[tuple[str, int]] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append((host, port))
        return list(answers)

    resolver.calls = calls  # type: ignore[attr-defined]  # test helper records lookups
    return resolver


# (url, answers of the injected resolver) -> ContentBlockedError
BLOCKED = [
    # every IPv4 block of the table, as literals
    ("http://0.0.0.0/", ()),
    ("http://0.1.2.3/", ()),
    ("http://10.0.0.1/", ()),
    ("http://172.16.0.1/", ()),
    ("http://172.31.255.254/", ()),
    ("http://192.168.1.1/", ()),
    ("http://100.64.0.1/", ()),
    ("http://100.127.255.254/", ()),
    ("http://127.0.0.1/", ()),
    ("http://127.255.255.254:8080/x", ()),
    ("http://169.254.169.254/latest/meta-data/", ()),
    ("http://192.0.0.170/", ()),
    ("http://192.0.2.1/", ()),
    ("http://198.51.100.7/", ()),
    ("http://203.0.113.9/", ()),
    ("http://192.88.99.1/", ()),
    ("http://198.18.0.1/", ()),
    ("http://198.19.255.1/", ()),
    ("http://224.0.0.1/", ()),
    ("http://239.255.255.250/", ()),
    ("http://240.0.0.1/", ()),
    ("http://255.255.255.255/", ()),
    # every IPv6 block
    ("http://[::]/", ()),
    ("http://[::1]/", ()),
    ("http://[::1]:8888/", ()),
    ("http://[100::1]/", ()),
    ("http://[2001:2::1]/", ()),
    ("http://[2001:db8::1]/", ()),
    ("http://[3fff::1]/", ()),
    ("http://[5f00::1]/", ()),
    ("http://[fc00::1]/", ()),
    ("http://[fd12:3456::1]/", ()),
    ("http://[fe80::1]/", ()),
    ("http://[febf::1]/", ()),  # still fe80::/10, not just the fe80: prefix
    ("http://[fec0::1]/", ()),
    ("http://[ff02::1]/", ()),
    ("http://[64:ff9b:1::a00:1]/", ()),
    # IPv4 embedded in IPv6
    ("http://[::ffff:127.0.0.1]/", ()),
    ("http://[::ffff:169.254.169.254]/", ()),
    ("http://[::ffff:7f00:1]/", ()),
    ("http://[::127.0.0.1]/", ()),  # IPv4-compatible
    ("http://[::10.1.2.3]/", ()),
    ("http://[64:ff9b::127.0.0.1]/", ()),  # NAT64
    ("http://[64:ff9b::a9fe:a9fe]/", ()),
    ("http://[2002:7f00:1::1]/", ()),  # 6to4 around 127.0.0.1
    ("http://[2002:c0a8:101::]/", ()),  # 6to4 around 192.168.1.1
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", ()),  # Teredo around 127.0.0.1
    ("http://[2001::1]/", ()),  # Teredo prefix itself
    # numeric spellings of loopback / metadata
    ("http://2130706433/", ()),
    ("http://0x7f000001/", ()),
    ("http://0x7f.1/", ()),
    ("http://0x7F.0.0.1/", ()),
    ("http://0177.0.0.1/", ()),
    ("http://017700000001/", ()),
    ("http://127.1/", ()),
    ("http://127.0.1/", ()),
    ("http://0/", ()),
    ("http://0251.0376.0251.0376/", ()),  # 169.254.169.254 in octal
    ("http://2852039166/", ()),  # 169.254.169.254 in decimal
    ("http://10.1/", ()),
    # names
    ("http://localhost/", ("127.0.0.1",)),
    ("http://localhost./", ("127.0.0.1",)),
    ("http://LOCALHOST/", ("127.0.0.1",)),
    ("http://LocalHost.:8080/", ("127.0.0.1",)),
    ("http://api.localhost/", (PUBLIC,)),
    ("http://printer.local/", (PUBLIC,)),
    ("http://metadata.google.internal/computeMetadata/v1/", (PUBLIC,)),
    ("http://db.corp.internal./", (PUBLIC,)),
    ("http://router.home.arpa/", (PUBLIC,)),
    ("http://ｌｏｃａｌｈｏｓｔ/", ("127.0.0.1",)),  # fullwidth letters map to localhost (UTS 46)
    ("http://１２７.０.０.１/", ()),  # fullwidth digits
    ("http://127。0。0。1/", ()),  # ideographic full stops
    # names that resolve to private addresses (DNS answers checked, any bad answer blocks)
    ("http://public.example/", ("10.0.0.5",)),
    ("http://public.example/", (PUBLIC, "127.0.0.1")),
    ("http://public.example/", (PUBLIC, "::1")),
    ("http://public.example/", ("::ffff:10.0.0.1",)),
    ("http://public.example/", ("fe80::1%eth0",)),
    ("http://EXAMPLE.COM./", ("192.168.0.10",)),
    ("https://xn--e1afmkfd.example/", ("172.20.1.1",)),  # IDN name, private answer
    ("http://bücher.example/", ("100.100.100.100",)),
]

INVALID = [
    "file:///etc/passwd",
    "ftp://example.com/file",
    "javascript:alert(1)",
    "gopher://127.0.0.1:70/_",
    "data:text/html,<script>",
    "dict://127.0.0.1:11211/",
    "//example.com/no-scheme",
    "example.com/relative",
    "",
    "   ",
    "http://",
    "http:///path-only",
    "http://user:pass@example.com/",
    "http://user@example.com/",
    "http://example.com@127.0.0.1/",
    "http://127.0.0.1\\@example.com/",
    "http://exa mple.com/",
    "http://example.com/\r\nX-Injected: 1",
    "http://[fe80::1%25eth0]/",
    "http://[::1/",
    "http://example.com:99999/",
    "http://08.0.0.1/",
    "http://256.1.1.1/",
    "http://1.2.3.4.5/",
    "http://foo.123/",
    "http://example..com/",
    "http://example.com/search?api_key=abcdef123456",
    "http://example.com/?token=abcdef",
    "http://example.com/?q=x&access_token=abc",
    "http://example.com/?password=hunter2",
    "http://example.com/leak/sk-proj-AbCdEf1234567890GhIjKl",
    "http://example.com/?q=tvly-dev-Abc123XYZ456def789GHI",
]


@pytest.mark.parametrize(("url", "answers"), BLOCKED)
def test_hostile_url_is_blocked(url: str, answers: tuple[str, ...]) -> None:
    with pytest.raises(ContentBlockedError) as info:
        check_url(url, resolver=resolve_to(*answers))
    assert "security.allow_private_urls" in str(info.value)
    assert info.value.code == "CONTENT_BLOCKED"


@pytest.mark.parametrize("url", INVALID)
def test_invalid_url_is_refused(url: str) -> None:
    with pytest.raises(InvalidInputError):
        check_url(url, resolver=resolve_to(PUBLIC))


def test_table_is_large_enough() -> None:
    assert len(BLOCKED) + len(INVALID) >= 40


@pytest.mark.parametrize(
    ("url", "host", "normalised"),
    [
        ("http://EXAMPLE.com./a?q=1", "example.com", "http://example.com/a?q=1"),
        ("HTTPS://Example.COM:443", "example.com", "https://example.com/"),
        ("https://example.com:8443/p#frag", "example.com", "https://example.com:8443/p"),
        ("http://bücher.example/x", "xn--bcher-kva.example", "http://xn--bcher-kva.example/x"),
        ("http://example.com/fc-barcelona-news-today", "example.com", "http://example.com/fc-barcelona-news-today"),
        ("http://example.com/blog/sk-learn-tutorial-2024", "example.com", "http://example.com/blog/sk-learn-tutorial-2024"),
        ("http://example.com/?author=bob&keyword=x", "example.com", "http://example.com/?author=bob&keyword=x"),
    ],
)
def test_public_urls_pass_and_are_normalised(url: str, host: str, normalised: str) -> None:
    resolver = resolve_to(PUBLIC)
    guarded = check_url(url, resolver=resolver)
    assert guarded.host == host
    assert guarded.url == normalised
    assert guarded.addresses == (PUBLIC,)
    assert resolver.calls == [(host, guarded.port)]  # type: ignore[attr-defined]  # set by the helper above


def test_signed_download_urls_pass() -> None:
    url = ("https://cdn.example.net/img.png?se=2030-01-01&sp=r&sig=AbCdEf123%2B456GhIj789KlMnOpQrStUv"
           "&X-Amz-Credential=AKIAEXAMPLE%2F2024&X-Amz-Signature=0123456789abcdef")
    assert check_url(url, resolver=resolve_to(PUBLIC)).host == "cdn.example.net"


def test_public_literals_and_embedded_public_pass() -> None:
    assert check_url("http://8.8.8.8/").addresses == ("8.8.8.8",)
    assert check_url("http://134744072/").addresses == ("8.8.8.8",)  # decimal spelling is interpreted
    assert check_url("http://[2606:4700:4700::1111]/").host == "2606:4700:4700::1111"
    assert check_url("http://[64:ff9b::8.8.8.8]/").addresses == ("64:ff9b::808:808",)


def test_registered_secret_in_url_is_refused() -> None:
    config.set_key("BRAVE_SEARCH_API_KEY", "plainlookingvalue42")
    with pytest.raises(InvalidInputError) as info:
        check_url("http://example.com/p/plainlookingvalue42", resolver=resolve_to(PUBLIC))
    assert "plainlookingvalue42" not in str(info.value)


def test_dns_failure_and_empty_answer_are_fetch_errors() -> None:
    def broken(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(ContentFetchError):
        check_url("http://nope.example/", resolver=broken)
    with pytest.raises(ContentFetchError):
        check_url("http://nope.example/", resolver=resolve_to())
    with pytest.raises(ContentFetchError):
        check_url("http://nope.example/", resolver=resolve_to("not-an-ip"))


def test_allow_private_urls_turns_off_address_checks_only() -> None:
    config.set("security.allow_private_urls", True)
    assert check_url("http://localhost:8080/x", resolver=resolve_to("127.0.0.1")).addresses == ("127.0.0.1",)
    assert check_url("http://10.0.0.1/").addresses == ("10.0.0.1",)
    assert check_url("http://db.internal/", resolver=resolve_to("10.1.1.1")).host == "db.internal"
    with pytest.raises(InvalidInputError):
        check_url("file:///etc/passwd")
    with pytest.raises(InvalidInputError):
        check_url("http://user:pw@10.0.0.1/")
    config.set("security.allow_private_urls", False)
    with pytest.raises(ContentBlockedError):
        check_url("http://10.0.0.1/")


def test_allow_networks_exempts_only_those_networks() -> None:
    guarded = check_url(
        "http://public.test:81/", resolver=resolve_to("127.0.0.1"), allow_networks=["127.0.0.1/32"]
    )
    assert guarded.addresses == ("127.0.0.1",) and guarded.port == 81
    with pytest.raises(ContentBlockedError):
        check_url("http://public.test/", resolver=resolve_to("127.0.0.2"), allow_networks=["127.0.0.1/32"])


def test_module_resolver_hook_is_used_and_reset() -> None:
    url_guard.set_resolver(resolve_to("10.9.9.9"))
    with pytest.raises(ContentBlockedError):
        check_url("http://anything.example/")
    url_guard.set_resolver(None)
    assert url_guard.get_resolver() is url_guard.default_resolver


def test_default_resolver_uses_getaddrinfo_both_families(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    def fake_getaddrinfo(host, port, family, kind):
        seen.update(host=host, family=family)
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC, port)),
            (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", port, 0, 0)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC, port)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    assert url_guard.default_resolver("example.com", 443) == [PUBLIC, "::1"]
    assert seen["family"] == socket.AF_UNSPEC
    with pytest.raises(ContentBlockedError):  # the IPv6 answer is loopback: any bad answer blocks
        check_url("https://example.com/")


@pytest.mark.parametrize(
    "address",
    ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:82a::200e", "::ffff:8.8.8.8",
     "2002:808:808::1"],
)
def test_public_addresses_have_no_reason(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None
