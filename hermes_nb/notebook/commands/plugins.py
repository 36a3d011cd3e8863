"""``%hermes plugins [--check | enable KEY | validate PATH]``: the plugins, their status and problems."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.commands.answers import Table

__all__ = ["run", "USAGE"]

USAGE = "%hermes plugins [--check | enable KEY | validate PATH]"


def run(args: list[str]) -> Any:
    from hermes_nb.plugins import loader  # lazy: keeps %load_ext fast

    if args[:1] == ["validate"] and len(args) == 2:
        from hermes_nb.plugins.validation import validate_plugin  # lazy: spawns the checking subprocess

        report = validate_plugin(args[1])
        lines = report.problems or [f"✅ {report.path}: no problems"]
        return Table("plugins validate", ["problem" if report.problems else "result"], [[x] for x in lines])
    if args[:1] == ["enable"] and len(args) == 2:
        record = loader.enable(args[1])  # one call: writes plugins.enabled and imports it now
        args = []
        if record.error:
            raise UsageError(record.error)
    if args not in ([], ["--check"]):
        raise UsageError(f"unexpected argument(s) {' '.join(args)!r}; usage: {USAGE}")
    rows = []
    for info in loader.check_all() if args else loader.list_plugins():
        if info.get("error"):
            status = f"❌ {info['error']}"
        elif not info.get("enabled"):
            status = f"– {info.get('reason') or 'disabled'}"
        elif not info.get("loaded"):
            status = "… not imported yet (imported on first use; %hermes plugins --check imports it now)"
            if info.get("missing_env"):
                status += f"; {', '.join(info['missing_env'])} not set"
        else:  # its providers answer, as in %hermes providers: a keyless mode is available, not "missing"
            status = f"{'❌' if info.get('availability') == 'unavailable' else '✅'} {info['status']}"
        extras = [f"registered; not used in notebooks: {', '.join(info.get('not_used_in_notebooks') or [])}",
                  f"hooks hermes_nb never fires: {', '.join(info.get('hooks_not_fired') or [])}"]
        status += "".join(f"; {e}" for e in extras if not e.endswith(": "))
        rows.append([info["key"], info.get("version", ""), info.get("source", ""), status])
    return Table("Plugins", ["plugin", "version", "source", "status"], rows)
