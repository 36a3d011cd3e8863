"""``%hermes providers [web|image_gen|video_gen]``: every provider, available or not (in words) and why."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.commands.answers import Table, expect

__all__ = ["run"]


def run(args: list[str]) -> Any:
    expect(args, 1, "%hermes providers [web|image_gen|video_gen]")
    kinds = args or ["web", "image_gen"]
    if any(k not in ("web", "image_gen", "video_gen") for k in kinds):
        raise UsageError("%hermes providers takes 'web', 'image_gen' or 'video_gen'")
    if args:  # one kind: the full listing (tier, keyless, why not, docs), as hn.providers(kind)
        from hermes_nb.catalog import providers  # lazy: keeps %load_ext fast

        return providers(args[0])

    rows: list[list[Any]] = []
    if "web" in kinds:
        from hermes_nb.web import listing  # lazy: keeps %load_ext fast

        for row in listing.describe():
            keyless = " (keyless)" if row.tier == "keyless" else ""
            mark = f"✅ yes{keyless}" if row.available else f"❌ no: {row.why_not}"
            chosen = ", ".join(row.selected_for) or "–"
            rows.append(["web", row.name, ", ".join(row.capabilities), mark, chosen])
    if "image_gen" in kinds:
        from hermes_nb import images  # lazy: keeps %load_ext fast

        for info in images.describe_image_providers():
            mark = "✅ yes" if info["available"] else f"❌ no: {info['setup']}"
            rows.append(["image_gen", info["name"], "image", mark, "image" if info["active"] else "–"])
    return Table(
        "Providers",
        ["kind", "provider", "capabilities", "available", "selected for"],
        rows,
        note="Select one with %hermes use search|extract|crawl|image <provider> (auto: back to auto).",
    )
