"""``%hermes`` subcommands: one module each under ``notebook/commands``, found by the dispatcher."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from IPython.core.error import UsageError

from hermes_nb.notebook import commands
from hermes_nb.notebook.magics import HermesMagics

COMMANDS_DIR = Path(commands.__file__).parent


def test_every_subcommand_is_one_module_with_run() -> None:
    modules = {p.stem for p in COMMANDS_DIR.glob("*.py")} - {"__init__", "answers"}
    assert modules == set(commands.SUBCOMMANDS)
    for name in commands.SUBCOMMANDS:
        assert callable(importlib.import_module(f"hermes_nb.notebook.commands.{name}").run)


def test_every_subcommand_is_in_the_magic_help() -> None:
    help_text = HermesMagics.hermes.__doc__ or ""
    assert [name for name in commands.SUBCOMMANDS if f"%hermes {name}" not in help_text] == []


def test_subcommands_import_only_answers_and_layers_below() -> None:
    """No subcommand imports another (the old cache_command ↔ hermes_command circle stays gone)."""
    for path in COMMANDS_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        siblings = {m for m in imported if m.startswith("hermes_nb.notebook.commands")}
        assert siblings <= {"hermes_nb.notebook.commands.answers"}, path.name


def test_unknown_and_missing_subcommands_name_the_choices() -> None:
    with pytest.raises(UsageError, match="plugins, providers, use, config, tools, cache, doctor"):
        commands.run([])
    with pytest.raises(UsageError, match="unknown %hermes subcommand 'nope'"):
        commands.run(["nope"])


def test_doctor_says_skipped_in_words_and_never_passes_a_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_nb.notebook import doctor
    from hermes_nb.notebook.commands import doctor as command

    def skipped() -> str:
        raise doctor._Skip("the bundled brave provider is not installed")

    monkeypatch.setattr(doctor, "_CHECKS", [("search (emulator)", skipped), ("store", doctor._store)])
    (skip, store) = doctor.run_checks()
    assert (skip.ok, skip.skipped, skip.status) == (False, True, "skipped")
    assert (store.ok, store.status) == (True, "ok")
    rows = {row[0]: row for row in command.run([]).rows}
    assert rows["search (emulator)"][1] == "– skipped"
    assert rows["search (emulator)"][2] == "skipped: the bundled brave provider is not installed"
    assert rows["store"][1] == "✅ ok"


def test_config_show_flags_what_would_be_refused(hermetic: Path) -> None:
    from hermes_nb.notebook.commands import config as command

    (hermetic / "config.yaml").write_text("web:\n  search_backend: 42\n", encoding="utf-8")
    table = command.run(["show"])
    assert table.headers == ["key", "value", "source", "problem"]
    (row,) = [row for row in table.rows if row[3]]
    assert row[0] == "web.search_backend" and "must be a string" in row[3]
    assert row[3].endswith("fix: %hermes config set web.search_backend VALUE")
