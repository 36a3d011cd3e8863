"""SSRF guard for user-supplied content URLs: scheme, credentials, host names and resolved addresses.

``check_url`` returns the addresses it validated so that the caller connects to exactly those
(``hermes_nb.net.fetch`` pins them), closing the DNS-rebinding gap. ``security.allow_private_urls: true``
turns off the name and address checks (intranets); ``security.private_origins`` lets exactly the listed
origins (``http://127.0.0.1:8877``: scheme, host and port) through them instead, as ``use_emulator``
does for the emulator. ``provider_origins(...)`` does the same for the duration of one provider call:
a URL a provider returns on the origin of the base URL the user configured for it (a local rig, a
gateway) is the user's own choice; every other private address, redirects included, stays refused.
Scheme, userinfo and secret checks always stay.
"""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
import re
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb.errors import ContentBlockedError, ContentFetchError, InvalidInputError
from hermes_nb.redaction import MASK, redact

__all__ = [
    "Resolver",
    "GuardedURL",
    "check_url",
    "check_syntax",
    "blocked_reason",
    "default_resolver",
    "set_resolver",
    "get_resolver",
    "private_origins",
    "provider_origins",
    "trusted_origins",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: ``resolver(host, port) -> ["93.184.216.34", "2606:2800::1", ...]``
Resolver = Callable[[str, int], list[str]]

_FIX = (
    "to fetch intranet addresses set security.allow_private_urls: true "
    "(hn.config.set('security.allow_private_urls', True))"
)

_V4_BLOCKS = [
    (ipaddress.IPv4Network(net), why)
    for net, why in [
        ("0.0.0.0/8", "'this network'"),
        ("10.0.0.0/8", "private"),
        ("172.16.0.0/12", "private"),
        ("192.168.0.0/16", "private"),
        ("100.64.0.0/10", "carrier-grade NAT"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local / cloud metadata"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("198.51.100.0/24", "documentation (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3)"),
        ("192.88.99.0/24", "6to4 relay anycast"),
        ("198.18.0.0/15", "benchmarking"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
        ("255.255.255.255/32", "broadcast"),
    ]
]

_V6_BLOCKS = [
    (ipaddress.IPv6Network(net), why)
    for net, why in [
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("100::/64", "discard-only"),
        ("2001::/23", "IETF protocol assignments (incl. Teredo)"),
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "SRv6 SIDs"),
        ("fc00::/7", "unique local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    ]
]

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_V4_COMPATIBLE = ipaddress.IPv6Network("::/96")

_DENIED_NAMES = ("localhost",)
_DENIED_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa")

# Query parameters that carry credentials (Hermes refuses to send these to arbitrary sites). Signed
# download URLs (``sig=``, ``X-Amz-Signature=``) are deliberately absent: they are not user secrets.
_SECRET_PARAMS = frozenset(
    {
        "api_key", "apikey", "api-key", "key", "access_token", "token", "auth", "auth_token",
        "secret", "client_secret", "password", "passwd", "pwd", "subscription_token", "x-api-key",
    }
)
# Vendor-shaped API keys: a known prefix followed by a long mixed-case alphanumeric run.
_KEY_SHAPE = re.compile(r"(?<![A-Za-z0-9])(?:sk|tvly|xai|fc|jina|pk|gsk|hf)[-_](?:[A-Za-z0-9]+[-_])*"
                        r"(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])"
                        r"[A-Za-z0-9_-]{20,}")
_HOST_OK = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$")
_NUMERIC_LABEL = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)$")

_resolver_lock = threading.Lock()
_resolver: Resolver | None = None


@dataclass(frozen=True)
class GuardedURL:
    """A URL that passed the guard, with the addresses it may be fetched from."""

    url: str  # normalised: lower-case scheme and host, IDNA, no fragment
    scheme: str
    host: str  # ASCII host name, or the canonical IP literal (no brackets)
    port: int
    addresses: tuple[str, ...]  # validated addresses; connect only to these

    @property
    def origin(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)


def default_resolver(host: str, port: int) -> list[str]:
    """Every address ``getaddrinfo`` gives for ``host`` (IPv4 and IPv6), in order, without duplicates."""
    infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM)
    seen: list[str] = []
    for info in infos:
        addr = str(info[4][0]).split("%", 1)[0]
        if addr not in seen:
            seen.append(addr)
    return seen


def set_resolver(resolver: Resolver | None) -> None:
    """Use ``resolver`` for every guarded URL (tests); None restores ``default_resolver``."""
    global _resolver
    with _resolver_lock:
        _resolver = resolver


def get_resolver() -> Resolver:
    return _resolver or default_resolver


@on_reset
def _reset() -> None:
    set_resolver(None)


def _origin_of(text: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an ``http(s)://host[:port]`` string (host normalised), else None."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname or parts.username is not None:
        return None
    try:
        host = _normalise_host(parts.hostname)
    except InvalidInputError:
        return None
    return scheme, str(host), port if port is not None else (443 if scheme == "https" else 80)


def private_origins() -> frozenset[tuple[str, str, int]]:
    """The origins ``security.private_origins`` lets through the private-address checks."""
    value = config.get("security.private_origins") or []
    items = value.split(",") if isinstance(value, str) else value
    found = (_origin_of(item) for item in items if isinstance(item, str) and item.strip())
    return frozenset(origin for origin in found if origin is not None)


_trusted: contextvars.ContextVar[frozenset[tuple[str, str, int]]] = contextvars.ContextVar(
    "hermes_nb_trusted_origins", default=frozenset()
)


def trusted_origins() -> frozenset[tuple[str, str, int]]:
    """The origins the current provider call was configured with (``provider_origins``)."""
    return _trusted.get()


@contextlib.contextmanager
def provider_origins(base_urls: Iterable[str]) -> Iterator[frozenset[tuple[str, str, int]]]:
    """Within the block, URLs on the origin (scheme, host, port) of one of ``base_urls`` pass the
    private-address checks, as ``security.private_origins`` does; a redirect off it is checked as usual.

    ``base_urls`` are the base URLs a user configured for the provider being called, never a
    vendor's default; the context (and so the trust) follows the call into its worker thread.
    """
    found = (_origin_of(url) for url in base_urls if isinstance(url, str) and url.strip())
    origins = frozenset(origin for origin in found if origin is not None)
    token = _trusted.set(_trusted.get() | origins)
    try:
        yield origins
    finally:
        _trusted.reset(token)


def blocked_reason(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be fetched (None when it is a public unicast address)."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded, how = _embedded_v4(ip)
        if embedded is not None:
            inner = blocked_reason(embedded)
            if inner:
                return f"{how} {embedded}: {inner}"
            if how in ("IPv4-mapped", "IPv4-compatible", "NAT64", "6to4"):
                return None  # judged by the IPv4 address it carries
        for net, why in _V6_BLOCKS:
            if ip in net:
                return why
    else:
        for net4, why in _V4_BLOCKS:
            if ip in net4:
                return why
    # Second line of defence; its exact ranges differ between Python versions (CVE-2024-4032).
    if not ip.is_global or ip.is_multicast:
        return "not globally reachable"
    return None


def _embedded_v4(ip: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address | None, str]:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped, "IPv4-mapped"
    if ip.teredo is not None:
        return ip.teredo[1], "Teredo client"
    if ip.sixtofour is not None:
        return ip.sixtofour, "6to4"
    last32 = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _NAT64:
        return last32, "NAT64"
    if ip in _V4_COMPATIBLE and int(ip) > 1:
        return last32, "IPv4-compatible"
    return None, ""


def _parse_legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The address an inet_aton spelling means (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``)."""
    labels = host.split(".")
    if not 1 <= len(labels) <= 4 or not all(_NUMERIC_LABEL.match(x) for x in labels):
        return None
    try:
        parts = [int(x, 16) if x.startswith("0x") else int(x, 8) if len(x) > 1 and x[0] == "0" else int(x)
                 for x in (lab if lab != "0x" else "0x0" for lab in labels)]
    except ValueError:
        raise InvalidInputError(f"'{host}' is not a valid host or IPv4 address") from None
    *head, last = parts
    if any(p > 255 for p in head) or last >= 256 ** (5 - len(parts)):
        raise InvalidInputError(f"'{host}' is not a valid host or IPv4 address")
    value = last
    for i, part in enumerate(head):
        value += part << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def _normalise_host(raw: str) -> str | IPAddress:
    host = unquote(raw)
    if host.startswith("[") or ":" in host:
        try:
            if "%" in host:
                raise ValueError("zone id")
            return ipaddress.IPv6Address(host.strip("[]"))
        except ValueError:
            raise InvalidInputError(f"'{raw}' is not a valid IPv6 address (zone ids are refused)") from None
    if host.endswith("."):
        host = host[:-1]
    if not host or host.endswith("."):
        raise InvalidInputError(f"'{raw}' is not a valid host name")
    try:
        import idna

        host = idna.encode(host, uts46=True, transitional=False).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError):
        try:  # the stricter 2008 rules refuse some names browsers accept (underscores, emoji)
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise InvalidInputError(f"'{raw}' is not a valid host name") from None
    host = host.lower().rstrip(".")
    try:
        return ipaddress.IPv4Address(host)
    except ValueError:
        pass
    legacy = _parse_legacy_ipv4(host)
    if legacy is not None:
        return legacy
    if not _HOST_OK.match(host):
        raise InvalidInputError(f"'{raw}' is not a valid host name")
    if _NUMERIC_LABEL.match(host.rsplit(".", 1)[-1]) and not host.rsplit(".", 1)[-1].startswith("0x"):
        raise InvalidInputError(f"'{raw}' is neither an IPv4 address nor a host name")
    return host


def _check_secrets(url: str, query: str) -> None:
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name.strip().lower() in _SECRET_PARAMS and value:
            raise InvalidInputError(
                f"refusing a URL with a credential in its '{name}' query parameter; fetch URLs must not "
                "carry API keys or passwords"
            )
    text = unquote(url)
    for token in re.split(r"[/?&=#;,:@+\s.]+", text):
        if len(token) >= 8 and (_KEY_SHAPE.search(token) or (redact(token) == MASK and MASK not in token
                                                             and not _looks_generic(token))):
            raise InvalidInputError(
                "refusing a URL that contains an API key or another secret; remove it from the URL"
            )


def _looks_generic(token: str) -> bool:
    """Tokens the redactor masks by shape only (``fc-barcelona-news``), not because they are secrets."""
    return bool(re.fullmatch(r"(?:sk|fc|tvly|xai|pk|jina)[-_][A-Za-z0-9_\-]{8,}", token))


def check_syntax(url: object) -> str:
    """The offline part of ``check_url``: an absolute http(s) URL without userinfo or secrets.

    Returns the stripped URL or raises ``InvalidInputError``. Callers that hand URLs to a
    third-party API (extract through Tavily, say) use it so no secret ever leaves in a URL.
    """
    if not isinstance(url, str) or not url.strip():
        raise InvalidInputError("a URL is required (an absolute http:// or https:// URL)")
    url = url.strip()
    if any(ord(c) < 0x21 or c == "\\" for c in url):
        raise InvalidInputError("URLs may not contain spaces, control characters or backslashes")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is the check (a bad one raises ValueError)
    except ValueError as exc:
        raise InvalidInputError(f"not a valid URL ({exc}); give an absolute http:// or https:// URL") \
            from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        shown = f"'{scheme}:'" if scheme else "a relative URL"
        raise InvalidInputError(f"only http:// and https:// URLs can be fetched, got {shown}")
    netloc = parts.netloc
    if not netloc:
        raise InvalidInputError("the URL has no host; give an absolute http:// or https:// URL")
    if "@" in netloc:
        raise InvalidInputError("URLs with a user name or password (user:pass@host) are not allowed")
    _check_secrets(url, parts.query)
    return url


def check_url(
    url: str,
    *,
    resolver: Resolver | None = None,
    allow_private: bool | None = None,
    allow_networks: Iterable[str] = (),
) -> GuardedURL:
    """Validate a user-supplied URL and resolve it; raise if it must not be fetched.

    ``InvalidInputError``: not an absolute http(s) URL, userinfo, or a secret in it;
    ``ContentBlockedError``: a denied host name or ANY resolved address that is not public;
    ``ContentFetchError``: the name does not resolve. ``allow_networks`` (CIDR strings) exempts
    specific networks, e.g. a test server on loopback; ``allow_private`` defaults to
    ``security.allow_private_urls``, and an origin listed in ``security.private_origins`` or set by
    ``provider_origins`` (scheme, host and port all equal) is let through the name and address checks.
    """
    url = check_syntax(url)
    parts = urlsplit(url)
    port_given = parts.port
    scheme = parts.scheme.lower()
    netloc = parts.netloc
    raw_host = netloc.rsplit(":", 1)[0] if not netloc.endswith("]") and netloc.count(":") == 1 else netloc
    if raw_host.startswith("["):
        raw_host = raw_host[: raw_host.index("]") + 1]
    host = _normalise_host(raw_host)
    port = port_given if port_given is not None else (443 if scheme == "https" else 80)
    if allow_private is None:
        allow_private = bool(config.get("security.allow_private_urls", False)) or (
            (scheme, str(host), port) in private_origins() | trusted_origins()
        )
    allowed = [ipaddress.ip_network(n, strict=False) for n in allow_networks]

    if isinstance(host, str):
        name = host
        if not allow_private and (name in _DENIED_NAMES or name.endswith(_DENIED_SUFFIXES)):
            raise ContentBlockedError(f"{_safe(url)}: host '{name}' is a local or internal name; {_FIX}")
        try:
            answers = (resolver or get_resolver())(name, port)
        except (OSError, UnicodeError) as exc:
            raise ContentFetchError(
                f"could not resolve host '{name}' ({type(exc).__name__}); check the URL and the network"
            ) from None
        if not answers:
            raise ContentFetchError(f"host '{name}' has no addresses; check the URL")
        try:
            addresses = [ipaddress.ip_address(str(a).split("%", 1)[0]) for a in answers]
        except ValueError:
            raise ContentFetchError(f"the resolver gave an invalid address for '{name}'") from None
    else:
        name = str(host)
        addresses = [host]

    if not allow_private:
        for ip in addresses:
            if any(ip.version == n.version and ip in n for n in allowed):
                continue
            why = blocked_reason(ip)
            if why:
                raise ContentBlockedError(f"{_safe(url)} resolves to {ip} ({why}), which is not a public "
                                          f"address; {_FIX}")

    shown_host = f"[{name}]" if ":" in name else name
    default_port = port == (443 if scheme == "https" else 80)
    netloc_out = shown_host if default_port else f"{shown_host}:{port}"
    path = parts.path or "/"
    normalised = f"{scheme}://{netloc_out}{path}" + (f"?{parts.query}" if parts.query else "")
    return GuardedURL(normalised, scheme, name, port, tuple(str(a) for a in addresses))


def _safe(url: str) -> str:
    """The URL without its query (which may carry tokens) for error messages."""
    return url.split("?", 1)[0].split("#", 1)[0][:200]
