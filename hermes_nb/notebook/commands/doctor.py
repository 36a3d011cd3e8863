"""``%hermes doctor``: check the installation (Python, ``HERMES_HOME``, providers, extras, the store …)."""

from __future__ import annotations

from typing import Any

from hermes_nb.notebook.commands.answers import Table, expect

__all__ = ["run"]


def run(args: list[str]) -> Any:
    expect(args, 0, "%hermes doctor")
    import sys

    from hermes_nb import config  # lazy: keeps %load_ext fast
    from hermes_nb.web import selection  # lazy: keeps %load_ext fast

    rows: list[list[Any]] = [["python", "✅", sys.version.split()[0]]]
    home = config.get_hermes_home()
    rows.append(
        [
            "HERMES_HOME",
            "✅" if home.is_dir() else "❌",
            "exists" if home.is_dir() else "missing (created on use)",
        ]
    )
    for capability in ("search", "extract", "crawl"):
        try:
            rows.append([f"web {capability}", "✅", selection.resolve(capability).name])
        except Exception as exc:
            rows.append([f"web {capability}", "❌", str(exc)[:120]])
    from hermes_nb.notebook.doctor import optional_features, run_checks  # lazy: starts an emulator

    for feature in optional_features():
        rows.append([feature.name, "✅" if feature.ok else "–", feature.fix or feature.detail])
    for check in run_checks():
        detail = check.detail if check.ok else f"{check.detail} — fix: {check.fix}"
        rows.append([check.name, "✅" if check.ok else "❌", detail])
    return Table("hermes_nb doctor", ["check", "ok", "detail"], rows)
