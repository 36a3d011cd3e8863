"""``tools.url_safety``: the private-address guard plugins run before fetching a URL."""

from __future__ import annotations

import asyncio

from hermes_nb.errors import HermesError
from hermes_nb.net import url_guard

HERMES_NAME = "tools.url_safety"
__all__ = ["is_safe_url", "async_is_safe_url", "normalize_url_for_request"]


def is_safe_url(url: str) -> bool:
    try:
        url_guard.check_url(url)
    except HermesError:
        return False
    return True


async def async_is_safe_url(url: str) -> bool:
    return await asyncio.to_thread(is_safe_url, url)


def normalize_url_for_request(url: str) -> str:
    return str(url).strip()
