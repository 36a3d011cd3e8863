"""What image generation cost: the ledger by provider, model and day, and the session's budget.

Each generated image carries ``cost`` (``{"usd": …, "estimated": bool}``: the provider's usage when
it reports one, else its documented price, marked estimated); the store keeps it with the image.
``image_gen.budget_usd`` caps what one Python session may spend on fresh generations (images
served from the cache cost nothing): a request whose estimate would go past it is refused with
``BudgetExceededError`` before any provider is called. Videos have their own budget,
``video_gen.budget_usd`` (pass ``setting=VIDEO_BUDGET``), and their own tally.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb.errors import InvalidInputError
from hermes_nb.store.database import get_store

__all__ = [
    "BudgetExceededError", "IMAGE_BUDGET", "VIDEO_BUDGET", "costs", "budget", "spent", "add_spend",
    "check_budget", "known_price",
]  # fmt: skip

IMAGE_BUDGET = "image_gen.budget_usd"
VIDEO_BUDGET = "video_gen.budget_usd"


class BudgetExceededError(InvalidInputError):
    """A generation (or a batch's estimate) would spend more than its budget setting allows."""


_lock = threading.Lock()
_spent: dict[str, float] = {}


def budget(setting: str = IMAGE_BUDGET) -> float | None:
    """``setting`` (``image_gen.budget_usd`` by default) as a float, or None when no budget is set."""
    value = config.get(setting)
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"{setting} must be a number of US dollars, got {value!r} (hn.config.set('{setting}', 5.0))"
        ) from exc
    return max(0.0, number)


def spent(setting: str = IMAGE_BUDGET) -> float:
    """US dollars spent on fresh generations counted against ``setting`` in this session."""
    with _lock:
        return _spent.get(setting, 0.0)


def add_spend(cost: dict[str, Any] | None, setting: str = IMAGE_BUDGET) -> None:
    usd = (cost or {}).get("usd")
    if isinstance(usd, (int, float)) and not isinstance(usd, bool):
        with _lock:
            _spent[setting] = _spent.get(setting, 0.0) + float(usd)


def check_budget(estimate_usd: float, what: str, setting: str = IMAGE_BUDGET) -> None:
    """Refuse (``BudgetExceededError``) when ``estimate_usd`` more would pass the session's budget."""
    cap = budget(setting)
    if cap is None:
        return
    already = spent(setting)
    if already + estimate_usd > cap + 1e-9:
        left = max(0.0, cap - already)
        raise BudgetExceededError(
            f"{what} is estimated at ${estimate_usd:.3f}, more than the ${left:.3f} that remains of "
            f"{setting} ${cap:.2f} (${already:.3f} spent this session); nothing was sent. "
            f"Raise the budget (hn.config.set('{setting}', …)), use fewer prompts, or re-run "
            "cached prompts (they cost nothing)"
        )


def known_price(provider: str, model: str | None) -> float | None:
    """The last recorded cost of one image from ``provider``/``model``, or None."""
    for row in get_store().find_images(limit=50, provider=provider):
        cost = (row.get("params") or {}).get("cost")
        same_model = (row.get("model") or None) == (model or None)
        if same_model and isinstance(cost, dict) and isinstance(cost.get("usd"), (int, float)):
            return float(cost["usd"])
    return None


def costs(by: Sequence[str] = ("provider", "model", "day")) -> list[dict[str, Any]]:
    """The ledger: images and US dollars per ``by`` group (``provider``, ``model``, ``day``), sorted.

    Each row: the group's fields, ``images``, ``usd``, ``estimated`` (True when any part is an
    estimate) and ``unknown`` (images whose provider reported no cost).
    """
    unknown_fields = set(by) - {"provider", "model", "day"}
    if unknown_fields:
        raise InvalidInputError(f"costs(by=…): unknown {sorted(unknown_fields)}; use provider, model, day")
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in get_store().find_images(limit=1_000_000):
        if (row.get("params") or {}).get("source") == "cassette":
            continue  # loaded from a recording: paid for elsewhere
        fields = {
            "provider": row.get("provider") or "",
            "model": row.get("model") or "",
            "day": datetime.fromtimestamp(float(row["created"]), timezone.utc).strftime("%Y-%m-%d"),
        }
        group = tuple(fields[name] for name in by)
        empty = {"images": 0, "usd": 0.0, "estimated": False, "unknown": 0}
        entry = groups.setdefault(group, {**{name: fields[name] for name in by}, **empty})
        entry["images"] += 1
        cost = (row.get("params") or {}).get("cost")
        if isinstance(cost, dict) and isinstance(cost.get("usd"), (int, float)):
            entry["usd"] = round(entry["usd"] + float(cost["usd"]), 6)
            entry["estimated"] = entry["estimated"] or bool(cost.get("estimated"))
        else:
            entry["unknown"] += 1
    return [groups[k] for k in sorted(groups)]


@on_reset
def _reset() -> None:
    with _lock:
        _spent.clear()
