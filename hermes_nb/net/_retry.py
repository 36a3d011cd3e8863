"""Retry policy of the provider HTTP client: which failures repeat, how long to wait, one deadline."""

from __future__ import annotations

import email.utils
import json
import logging
import math
import time
from collections.abc import Callable, Mapping
from datetime import timezone
from typing import TYPE_CHECKING

import httpx

from hermes_nb.errors import (
    HermesError,
    InvalidInputError,
    NetworkError,
    ParseError,
    RateLimitedError,
    TimeoutError_,
)
from hermes_nb.net.rate_limits import take_prepaid, vendor_wait
from hermes_nb.redaction import redact

if TYPE_CHECKING:
    from hermes_nb.net.http_client import HttpClient

__all__ = [
    "RETRY_AFTER_CAP",
    "RETRY_UNSENT",
    "BACKOFF_BASE",
    "BACKOFF_CAP",
    "Call",
    "parse_retry_after",
    "safe_url",
]

log = logging.getLogger("hermes_nb.http")

ErrorMap = Callable[[httpx.Response], "HermesError | None"]
RETRY_AFTER_CAP = 30.0
BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0
_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
_NO_RETRY_5XX = frozenset({501, 505})
#: ``retry=RETRY_UNSENT``: repeat only what the server certainly did not act on (connect failures, 429).
RETRY_UNSENT = "unsent"
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asks us to wait (``retry-after-ms``, ``Retry-After`` seconds or HTTP date)."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            value = float(raw_ms) / 1000.0
        except ValueError:
            value = math.nan
        if math.isfinite(value):
            return max(0.0, value)
    raw = (headers.get("retry-after") or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    return max(0.0, value) if math.isfinite(value) else None


def safe_url(url: httpx.URL | str) -> str:
    """Scheme, host and path only: query strings and userinfo may carry keys."""
    u = httpx.URL(str(url))
    port = f":{u.port}" if u.port else ""
    return f"{u.scheme}://{u.host}{port}{u.path}"


class Call:
    """The state of one ``request`` call across its attempts (shared by the sync and async loops)."""

    def __init__(self, client: HttpClient, method: str, url: str, timeout: float | None,
                 deadline: float | None, retry: bool | str, error_map: ErrorMap | None) -> None:
        self.client = client
        self.method = method.upper()
        self.url = url
        self.timeout = client._setting(timeout, client.timeout, "web.timeout", 20.0)
        self.start = client._clock()
        span = client._setting(deadline, client.deadline, "web.deadline", 60.0)
        if deadline is None:  # a caller's long per-request timeout (image generation) gets one full try
            span = max(span, self.timeout)
        self.end = self.start + span
        self.retries = int(client._setting(None, client.max_retries, "web.max_retries", 2)) if retry else 0
        self.only_unsent = retry == RETRY_UNSENT
        self.error_map = error_map
        self.attempt = 0
        self.slot = self.start  # when the current attempt's start slot came (the adaptive limiter's)
        self.throttled = False  # the last answer was a 429: its retry already waits the server's delay

    def remaining(self) -> float:
        return self.end - self.client._clock()

    def deadline_error(self, what: str) -> TimeoutError_:
        spent = self.client._clock() - self.start
        return TimeoutError_(
            f"{self.client.provider}: {self.method} {safe_url(self.url)} {what}; the call's deadline "
            f"was reached after {spent:.1f}s (raise web.deadline or pass deadline=)",
            provider=self.client.provider,
        )

    def attempt_timeout(self) -> float:
        left = self.remaining()
        if left <= 0:
            raise self.deadline_error("did not finish")
        return max(0.001, min(self.timeout, left))

    def rate_wait(self) -> float:
        """Seconds to wait before this attempt: the static bucket's and the adaptive limiter's slot."""
        wait = 0.0
        bucket = self.client._bucket
        if bucket is not None:
            wait = bucket.reserve()
            if wait >= self.remaining():
                bucket.give_back()
                raise self.deadline_error(f"was held by the rate limit ({bucket.rate:g}/s)")
        limiter = self.client._adaptive
        if limiter is None:
            return wait
        slot = take_prepaid(self.client.provider) if self.attempt == 0 else None
        if slot is not None:
            self.slot = slot
            return wait
        held, self.slot = limiter.reserve(hold=not self.throttled)
        if held >= self.remaining():
            limiter.give_back(self.slot)
            if bucket is not None:
                bucket.give_back()
            raise RateLimitedError(
                f"{self.client.provider}: {self.method} {safe_url(self.url)} was held by the provider's "
                f"adaptive rate limit ({limiter.state().summary()}) past the call's deadline; try again "
                "later, or lower the batch's concurrency",
                provider=self.client.provider, retry_after=held,
            )
        return max(wait, held)

    def _retry_delay(self, retry_after: float | None) -> float | None:
        """Seconds before the next attempt, or None when no retry is left or time would run out."""
        if self.attempt >= self.retries:
            return None
        if retry_after is not None:
            delay = min(retry_after, RETRY_AFTER_CAP)
        else:
            delay = self.client._rng.uniform(0.0, min(BACKOFF_CAP, BACKOFF_BASE * (2**self.attempt)))
        if delay >= self.remaining():
            return None
        self.attempt += 1
        return delay

    def on_response(self, resp: httpx.Response) -> float | None:
        """None: ``resp`` is the answer. A number: wait that long and try again. Raises the final error."""
        status = resp.status_code
        if status < 400:
            # A JSON answer cut off in transit: a GET may be repeated, whatever its status said.
            delay = self._retry_delay(None) if self.method in _IDEMPOTENT and _cut_off_json(resp) else None
            if delay is not None:
                log.info(redact(f"{self.client.provider}: truncated JSON from {safe_url(self.url)}; "
                                f"retry {self.attempt}/{self.retries} in {delay:.2f}s"))
            return delay
        retry_after = parse_retry_after(resp.headers, now=self.client._wall())
        if self.only_unsent:
            retryable = status == 429
        else:
            retryable = status in (408, 429) or (status >= 500 and status not in _NO_RETRY_5XX)
        if retryable and self.error_map is not None:
            mapped = self.error_map(resp)  # the vendor may know better (a quota 429 will not pass)
            retryable = mapped is None or mapped.retryable
            if retry_after is None:  # some vendors give the delay only in the body (Firecrawl)
                retry_after = getattr(mapped, "retry_after", None)
        self.throttled = status == 429 and retryable
        if self.throttled and retry_after is None:  # Brave and OpenAI say it in x-ratelimit-* instead
            retry_after = vendor_wait(resp.headers, now_wall=self.client._wall())
        if self.throttled and self.client._adaptive is not None:
            self.client._adaptive.on_throttle(self.slot, retry_after, resp.headers)
        delay = self._retry_delay(retry_after) if retryable else None
        if delay is not None:
            log.info(redact(f"{self.client.provider}: HTTP {status} from {safe_url(self.url)}; "
                            f"retry {self.attempt}/{self.retries} in {delay:.2f}s"))
            return delay
        raise self.client._status_error(resp, self.method, self.error_map, retry_after)

    def on_exception(self, exc: httpx.HTTPError, timeout: float) -> float:
        """Wait this long and try again, or raise the typed error for ``exc``."""
        provider, where = self.client.provider, f"{self.method} {safe_url(self.url)}"
        safe_to_repeat = self.method in _IDEMPOTENT
        err: HermesError
        if isinstance(exc, httpx.TimeoutException):
            kind = type(exc).__name__
            safe_to_repeat = safe_to_repeat or isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout))
            err = TimeoutError_(f"{provider}: {where} timed out after {timeout:.1f}s ({kind}); raise "
                                "web.timeout or try again later", provider=provider)
        elif isinstance(exc, httpx.ConnectError):
            safe_to_repeat = True
            err = NetworkError(f"{provider}: could not connect for {where} ({type(exc).__name__}); check "
                               "the network and the provider's base_url", provider=provider)
        elif isinstance(exc, (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError)):
            err = NetworkError(f"{provider}: the connection failed during {where} ({type(exc).__name__}); "
                               "try again later", provider=provider)
        elif isinstance(exc, httpx.DecodingError):
            safe_to_repeat = False
            err = ParseError(f"{provider}: undecodable response body from {where}", provider=provider)
        elif isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL, httpx.LocalProtocolError)):
            safe_to_repeat = False
            err = InvalidInputError(f"{provider}: cannot send {where} ({type(exc).__name__}); check the "
                                    "provider's base_url setting", provider=provider)
        else:
            safe_to_repeat = False
            err = NetworkError(f"{provider}: {where} failed ({type(exc).__name__})", provider=provider)
        if self.only_unsent:
            safe_to_repeat = isinstance(exc, _NOT_SENT)
        delay = self._retry_delay(None) if safe_to_repeat else None
        if delay is None:
            raise err from None
        log.info(redact(f"{provider}: {type(exc).__name__} on {where}; retry {self.attempt}/"
                        f"{self.retries} in {delay:.2f}s"))
        return delay


def _cut_off_json(resp: httpx.Response) -> bool:
    """The response says it is JSON but its body does not parse (truncated or garbled in transit)."""
    if "json" not in resp.headers.get("content-type", "") or not resp.content:
        return False
    try:
        json.loads(resp.content)
    except (ValueError, UnicodeDecodeError):
        return True
    return False
