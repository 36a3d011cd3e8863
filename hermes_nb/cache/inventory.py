"""What the cache holds: ``stats()``, ``entries()``, ``clear()`` and the ``costs()`` ledger."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from hermes_nb.errors import InvalidInputError
from hermes_nb.store import cassette, get_store, ledger
from hermes_nb.store.replay import cache_mode, replay_path
from hermes_nb.store.requests import describe, request_of

__all__ = ["stats", "entries", "clear", "costs", "since_timestamp"]


def since_timestamp(since: Any) -> float:
    """``since`` as a POSIX time: None (all), a number, a datetime, a timedelta (ago) or ISO text."""
    if since is None:
        return 0.0
    if isinstance(since, bool):
        raise InvalidInputError("since must be a datetime, a timedelta, an ISO date or a timestamp")
    if isinstance(since, (int, float)):
        return float(since)
    if isinstance(since, timedelta):
        return (datetime.now(timezone.utc) - since).timestamp()
    if isinstance(since, str):
        try:
            since = datetime.fromisoformat(since.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidInputError(
                f"since={since!r} is not an ISO date such as '2026-11-24T10:00:00Z'"
            ) from exc
    if isinstance(since, datetime):
        moment = since if since.tzinfo else since.replace(tzinfo=timezone.utc)
        return moment.timestamp()
    raise InvalidInputError(
        f"since must be a datetime, a timedelta, an ISO date or a timestamp, not {since!r}"
    )


def stats() -> dict[str, Any]:
    """Counts per kind, the store file and its size, the effective mode and this session's image spend."""
    replaying = replay_path()
    return {
        **get_store().stats(),
        "mode": cache_mode().value,
        "replay_file": str(replaying) if replaying else None,
        "spent_usd": round(ledger.spent(), 6),
        "budget_usd": ledger.budget(),
    }


def entries(kind: str | None = None, since: Any = None, limit: int | None = None) -> list[dict[str, Any]]:
    """One row per cached answer and generated image, newest first (``pandas.DataFrame(rows)`` works).

    ``kind``: ``search``, ``extract``, ``crawl`` or ``image``; ``since``: see ``since_timestamp``.
    """
    kinds = ("search", "extract", "crawl", "image")
    if kind is not None and kind not in kinds:
        raise InvalidInputError(f"entries(kind={kind!r}): use one of {', '.join(kinds)} or None")
    start = since_timestamp(since)
    rows: list[dict[str, Any]] = []
    if kind != "image":
        for row in get_store().cache_entries(kind, start):
            request = request_of(row["key"])
            rows.append(
                {"kind": row["kind"], "request": describe(request), "provider": row["provider"],
                 "created": cassette.iso(row["created"]), "items": _items(row["value"]), "path": None}
            )  # fmt: skip
    if kind in (None, "image"):
        for image in get_store().find_images(limit=1_000_000):
            if float(image["created"]) < start:
                continue
            request = (image.get("params") or {}).get("request") or {"prompt": image.get("prompt")}
            rows.append(
                {"kind": "image", "request": describe({"kind": "image", **request}),
                 "provider": image.get("provider") or "", "created": cassette.iso(float(image["created"])),
                 "items": 1, "path": image.get("path")}
            )  # fmt: skip
    rows.sort(key=lambda r: r["created"], reverse=True)
    return rows[:limit] if limit is not None else rows


def _items(value: Any) -> int:
    if isinstance(value, dict):
        for name in ("hits", "pages"):
            if isinstance(value.get(name), list):
                return len(value[name])
    return 1


def clear(kind: str | None = None) -> None:
    """Forget ``kind`` (``cache``, ``pages``, ``images``, ``batch``) or everything."""
    get_store().clear(kind)


def costs(by: tuple[str, ...] = ("provider", "model", "day")) -> list[dict[str, Any]]:
    """The image cost ledger grouped ``by`` provider, model and day (see ``hermes_nb.store.ledger``)."""
    return ledger.costs(by)
