"""A broken plugin is recorded with a message naming it and the fix; every other plugin loads."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest
from fixtures.plugins.factory import make_plugin, make_web_plugin

from hermes_nb import config
from hermes_nb.plugins import loader
from hermes_nb.plugins.manifest import MAX_MANIFEST_BYTES
from hermes_nb.plugins.registry import web_providers


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "bundled"
    make_web_plugin(root, "web/healthy", "healthy")  # must survive every failure below
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(root))
    return root


def _row(key: str) -> dict:
    return next(r for r in loader.list_plugins() if r["key"] == key)


def _healthy_still_loads() -> None:
    loader.load_plugins()
    assert web_providers.get("healthy") is not None
    assert _row("web/healthy")["error"] is None


def _assert_broken(key: str, *fragments: str) -> dict:
    loader.load_plugins()
    row = _row(key)
    assert row["error"], row
    assert row["loaded"] is False and row["available"] is False
    for fragment in fragments:
        assert fragment in row["error"], (fragment, row["error"])
    assert row["status"].startswith("error: ")
    _healthy_still_loads()
    return row


def test_malformed_yaml(bundled: Path) -> None:
    path = make_plugin(bundled, "web/bad", "name: bad\ndescription: [oops\n")
    _assert_broken("web/bad", str(path / "plugin.yaml"), "not valid YAML at line")


def test_wrong_field_types(bundled: Path) -> None:
    path = make_plugin(bundled, "web/bad", "name: bad\nprovides_web_providers: 7\n")
    _assert_broken("web/bad", str(path / "plugin.yaml"), "provides_web_providers", "must be a list")


def test_missing_register(bundled: Path) -> None:
    path = make_plugin(bundled, "web/bad", None, "X = 1\n")
    _assert_broken("web/bad", f"no register() function in {path / '__init__.py'}", "def register(ctx)")


@pytest.mark.parametrize(
    ("declared", "module", "fragments"),
    [
        ("missing:P", None, ("no missing.py", "fix provider_class")),
        ("provider:Nope", "X = 1\n", ("'Nope'", "no such class", "fix provider_class")),
        ("provider:X", "class X: ...\n", ("is not a provider", "subclass WebSearchProvider")),
    ],
)
def test_provider_class_problems_name_the_manifest_and_the_fix(
    bundled: Path, declared: str, module: str | None, fragments: tuple[str, ...]
) -> None:
    files = {"provider": module} if module is not None else {}
    path = make_plugin(bundled, "web/bad", f"name: bad\nprovider_class: {declared}\n", init=None, **files)
    _assert_broken("web/bad", str(path / "plugin.yaml"), *fragments)


def test_register_raising_rolls_back_providers(bundled: Path) -> None:
    make_plugin(
        bundled,
        "web/bad",
        "name: bad\nprovides_web_providers: [half]\n",
        """
        from hermes_nb.plugins.web_provider import WebSearchProvider

        class Half(WebSearchProvider):
            name = "half"
            def is_available(self):
                return True

        def register(ctx):
            ctx.register_web_search_provider(Half())
            raise RuntimeError("boom in register")
        """,
    )
    row = _assert_broken(
        "web/bad", "web/bad", "RuntimeError: boom in register", "hermes-nb plugins disable web/bad"
    )
    assert row["providers"] == []
    assert web_providers.get("half") is None
    assert loader.module_name("web/bad") not in sys.modules


def test_import_error(bundled: Path) -> None:
    make_plugin(bundled, "web/bad", None, "import no_such_module_xyz\n\ndef register(ctx):\n    pass\n")
    _assert_broken(
        "web/bad", "ModuleNotFoundError", "pip install no_such_module_xyz", "hermes-nb plugins disable"
    )


def test_syntax_error_and_system_exit(bundled: Path) -> None:
    make_plugin(bundled, "web/syntax", None, "def register(ctx) pass\n")
    make_plugin(bundled, "web/exits", None, "import sys\nsys.exit(3)\n")
    _assert_broken("web/syntax", "SyntaxError")
    _assert_broken("web/exits", "SystemExit")


def test_key_collision_across_sources(bundled: Path, hermetic: Path) -> None:
    make_web_plugin(hermetic / "plugins", "web/healthy", "healthy")
    config.set("plugins.enabled", ["web/healthy"])
    row = _row("web/healthy")
    assert row["source"] == "user"
    assert row["overrides"] == [f"bundled: {bundled / 'web' / 'healthy'}"]
    _healthy_still_loads()


def test_flat_name_collision_within_one_source(bundled: Path) -> None:
    make_plugin(bundled, "one", "name: same\n")
    make_plugin(bundled, "two", "name: same\n")
    row = _row("same")
    assert row["path"].endswith("two") and row["overrides"][0].endswith("one")


def test_directory_without_init(bundled: Path) -> None:
    path = make_plugin(bundled, "web/bad", None, init=None)
    _assert_broken("web/bad", f"no __init__.py in {path}", "register(ctx)")


def test_non_utf8_manifest(bundled: Path) -> None:
    make_plugin(bundled, "web/bad", "name: caf\xe9\n".encode("latin-1"))
    _assert_broken("web/bad", "not UTF-8", "save it as UTF-8")


def test_huge_manifest(bundled: Path) -> None:
    make_plugin(bundled, "web/bad", b"name: bad\n# " + b"x" * MAX_MANIFEST_BYTES)
    _assert_broken("web/bad", "limit 65536")


def test_symlink_loop_terminates(bundled: Path, caplog: pytest.LogCaptureFixture) -> None:
    os.symlink(bundled, bundled / "loop")
    os.symlink(bundled / "web", bundled / "web" / "again")
    with caplog.at_level(logging.WARNING):
        keys = [r["key"] for r in loader.list_plugins()]
    assert keys == ["web/healthy"]
    problems = loader.get_plugin_manager().problems
    assert len(problems) == 2 and all("symlink loop" in p and "remove the link" in p for p in problems)
    _healthy_still_loads()


def test_wrong_type_provider_is_ignored_not_fatal(bundled: Path, caplog: pytest.LogCaptureFixture) -> None:
    make_plugin(
        bundled, "web/odd", None, "def register(ctx):\n    ctx.register_web_search_provider(object())\n"
    )
    loader.load_plugins()
    row = _row("web/odd")
    assert row["error"] is None and row["loaded"] is True and row["providers"] == []
    assert "needs a WebSearchProvider instance, got object" in caplog.text


def test_secret_in_error_is_redacted(bundled: Path) -> None:
    config.set_key("BAD_PLUGIN_API_KEY", "sk-supersecretvalue123")
    make_plugin(
        bundled, "web/leaky", None, "def register(ctx):\n    raise ValueError('key sk-supersecretvalue123')\n"
    )
    row = _assert_broken("web/leaky", "ValueError")
    assert "sk-supersecretvalue123" not in row["error"]
