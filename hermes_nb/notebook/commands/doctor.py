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
            rows.append([f"web {capability}", "✅ ok", selection.resolve(capability).name])
        except Exception as exc:  # the whole message: its end names the fix
            rows.append([f"web {capability}", "❌ FAIL", getattr(exc, "message", None) or str(exc)])
    from hermes_nb.notebook.doctor import optional_features, run_checks  # lazy: starts an emulator

    for feature in optional_features():
        mark = "✅ ok" if feature.ok else "– not installed"
        rows.append([feature.name, mark, feature.fix or feature.detail])
    marks = {"ok": "✅ ok", "FAIL": "❌ FAIL", "skipped": "– skipped"}  # words too: not every font has emoji
    for check in run_checks():
        detail = check.detail if check.ok or check.skipped else f"{check.detail} — fix: {check.fix}"
        rows.append([check.name, marks[check.status], detail])
    return Table("hermes_nb doctor", ["check", "ok", "detail"], rows)
