"""What image generation cost: the ledger by provider, model and day, and the session's budget.

Each generated image carries ``cost`` (``{"usd": …, "estimated": bool}``: the provider's usage when
it reports one, else its documented price, marked estimated); the store keeps it with the image.
``image_gen.budget_usd`` caps what one Python session may spend on fresh generations (images
served from the cache cost nothing): a request whose estimate would go past it is refused with
``BudgetExceededError`` before any provider is called.
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

__all__ = ["BudgetExceededError", "costs", "budget", "spent", "add_spend", "check_budget", "known_price"]


class BudgetExceededError(InvalidInputError):
    """A generation (or a batch's estimate) would spend more than ``image_gen.budget_usd`` allows."""


_lock = threading.Lock()
_spent = 0.0


def budget() -> float | None:
    """``image_gen.budget_usd`` as a float, or None when no budget is set."""
    value = config.get("image_gen.budget_usd")
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"image_gen.budget_usd must be a number of US dollars, got {value!r} "
            "(hn.config.set('image_gen.budget_usd', 5.0))"
        ) from exc
    return max(0.0, number)


def spent() -> float:
    """US dollars spent on fresh generations in this session."""
    with _lock:
        return _spent


def add_spend(cost: dict[str, Any] | None) -> None:
    global _spent
    usd = (cost or {}).get("usd")
    if isinstance(usd, (int, float)) and not isinstance(usd, bool):
        with _lock:
            _spent += float(usd)


def check_budget(estimate_usd: float, what: str) -> None:
    """Refuse (``BudgetExceededError``) when ``estimate_usd`` more would pass the session's budget."""
    cap = budget()
    if cap is None:
        return
    already = spent()
    if already + estimate_usd > cap + 1e-9:
        left = max(0.0, cap - already)
        raise BudgetExceededError(
            f"{what} is estimated at ${estimate_usd:.3f}, more than the ${left:.3f} that remains of "
            f"image_gen.budget_usd ${cap:.2f} (${already:.3f} spent this session); nothing was sent. "
            "Raise the budget (hn.config.set('image_gen.budget_usd', …)), use fewer prompts, or re-run "
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
    global _spent
    with _lock:
        _spent = 0.0
