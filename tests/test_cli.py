"""The hermes-nb command (hermes_nb.cli.main): exit codes, output, plugin subcommands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fixtures.plugins.factory import make_plugin, make_web_plugin

from hermes_nb import config
from hermes_nb.cli import main


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "bundled"
    make_web_plugin(root, "web/alpha", "alpha", extra_manifest="requires_env:\n  - ALPHA_API_KEY\n")
    make_plugin(root, "web/broken", None, "raise ImportError('nope')\n")
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(root))
    return root


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plugins_list_and_info(bundled: Path, hermetic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_web_plugin(hermetic / "plugins", "web/beta", "beta")
    code, out, _ = _run(capsys, "plugins", "list")
    assert code == 0
    alpha = next(line for line in out.splitlines() if line.startswith("web/alpha"))
    assert alpha.endswith("(imported on first use, or now with --check); ALPHA_API_KEY not set")
    code, checked, _ = _run(capsys, "plugins", "list", "--check")  # imported: its provider answers
    alpha = next(line for line in checked.splitlines() if line.startswith("web/alpha"))
    assert code == 0 and alpha.endswith("✅ loaded")  # the fixture's provider is always available
    assert "not enabled (run `hermes-nb plugins enable web/beta`)" in out
    code, out, _ = _run(capsys, "plugins", "info", "web/alpha")
    assert code == 0 and "providers:    web:alpha" in out and "missing_env:  ALPHA_API_KEY" in out


def test_unknown_plugin_is_one_line_exit_1(bundled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "plugins", "info", "nope")
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [
        "hermes-nb: error: no plugin 'nope'; run `hermes-nb plugins list` to see the keys"
    ]


def test_enable_disable(bundled: Path, hermetic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_web_plugin(hermetic / "plugins", "web/beta", "beta")
    assert _run(capsys, "plugins", "enable", "beta")[0] == 0
    assert yaml.safe_load((hermetic / "config.yaml").read_text())["plugins"]["enabled"] == ["web/beta"]
    code, out, _ = _run(capsys, "plugins", "disable", "web/alpha")
    assert code == 0 and "disabled web/alpha" in out
    assert "disabled via config" in _run(capsys, "plugins", "list")[1]


def test_config_get_set_show(bundled: Path, hermetic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "config", "set", "web.timeout", "7.5")[0] == 0
    assert _run(capsys, "config", "set", "web.crawl_delay", "1.5")[0] == 0
    data = yaml.safe_load((hermetic / "config.yaml").read_text())
    assert data["web"] == {"timeout": 7.5, "crawl_delay": 1.5}
    config.reset()
    code, out, _ = _run(capsys, "config", "get", "web.timeout")
    assert (code, out.strip()) == (0, "web.timeout = 7.5  (config.yaml)")
    code, out, _ = _run(capsys, "config", "show")
    assert "web.crawl_delay = 1.5  (config.yaml)" in out and 'cache.mode = "read_write"  (default)' in out


def test_config_show_and_set_know_the_settings_plugins_declare(
    bundled: Path, hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = (
        "settings:\n  - key: web.alpha.region\n    type: string\n    default: eu\n"
        "    choices: [eu, us]\n    doc: \"Region Alpha answers from.\"\n"
    )
    (bundled / "web" / "alpha" / "plugin.yaml").write_text(
        (bundled / "web" / "alpha" / "plugin.yaml").read_text() + settings
    )
    code, out, _ = _run(capsys, "config", "show")
    assert code == 0 and 'web.alpha.region = "eu"  (default)' in out
    code, _, err = _run(capsys, "config", "set", "web.alpha.region", "mars")
    assert code == 1 and "web.alpha.region must be one of eu, us" in err
    assert _run(capsys, "config", "set", "web.alpha.region", "us")[0] == 0
    code, _, err = _run(capsys, "config", "set", "web.alpha.regoin", "us")
    assert code == 1 and "did you mean web.alpha.region" in err


def test_config_set_refuses_secrets(bundled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "config", "set", "web.brave.api_key", "sk-live-123456789")
    assert code == 1 and "set_key" in err and "sk-live-123456789" not in out + err
    assert len(err.strip().splitlines()) == 1


def test_doctor(bundled: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = _run(capsys, "doctor")
    assert code == 0
    assert "alpha" in out and "web/broken: plugin web/broken" in out and "ImportError: nope" in out


def test_tools_list_and_call(bundled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("hermes_nb.tools")
    make_plugin(
        bundled,
        "adder",
        "name: adder\nprovides_tools: [add]\n",
        """
        import json

        def add(args, **kw):
            return json.dumps({"sum": args["a"] + args["b"]})

        def register(ctx):
            ctx.register_tool(name="add", toolset="math", handler=add,
                              schema={"name": "add", "description": "Add two numbers.", "parameters": {}})
        """,
    )
    code, out, _ = _run(capsys, "tools", "list")
    assert code == 0 and "math/add  (adder, available)  Add two numbers." in out
    code, out, _ = _run(capsys, "tools", "call", "add", '{"a": 2, "b": 3}')
    assert (code, out.strip()) == (0, '{"sum": 5}')
    code, out, _ = _run(capsys, "tools", "call", "add", '{"a": 2}')
    assert code == 1 and '"error"' in out
    code, _, err = _run(capsys, "tools", "call", "add", "{not json")
    assert code == 1 and "must be a JSON object" in err


def test_usage_errors_exit_2(bundled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "bogus")[0] == 2
    assert _run(capsys, "plugins")[0] == 2
    assert _run(capsys)[0] == 2
    assert _run(capsys, "--help")[0] == 0


def test_plugin_cli_command_guide_style(bundled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_plugin(
        bundled,
        "my-plugin",
        "name: my-plugin\n",
        """
        def _my_command(args):
            sub = getattr(args, "my_command", None)
            if sub == "status":
                print("All good!")
            else:
                print("Usage: hermes my-plugin <status|config>")

        def _setup_argparse(subparser):
            subs = subparser.add_subparsers(dest="my_command")
            subs.add_parser("status", help="Show plugin status")
            subparser.set_defaults(func=_my_command)

        def register(ctx):
            ctx.register_cli_command(name="my-plugin", help="Manage my plugin",
                                     setup_fn=_setup_argparse, handler_fn=_my_command)
            ctx.register_cli_command(name="plugins", help="clash", setup_fn=_setup_argparse)
        """,
    )
    code, out, _ = _run(capsys, "my-plugin", "status")
    assert (code, out.strip()) == (0, "All good!")
    assert "Manage my plugin" in _run(capsys, "--help")[1]
    assert _run(capsys, "plugins", "list")[0] == 0  # the clashing name did not replace the built-in


def test_emulate_and_demo_delegate(
    bundled: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import hermes_nb.demo
    import hermes_nb.testing

    seen: dict[str, object] = {}
    monkeypatch.setattr(hermes_nb.testing, "serve", lambda host, port: seen.update(host=host, port=port))
    monkeypatch.setattr(hermes_nb.demo, "main", lambda argv: seen.update(demo=argv) or 3)
    assert _run(capsys, "emulate", "--port", "8765")[0] == 0
    assert _run(capsys, "demo", "--out", "x")[0] == 3
    assert seen == {"host": "127.0.0.1", "port": 8765, "demo": ["--out", "x"]}


def test_unexpected_errors_are_one_line(
    bundled: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_nb.plugins import loader

    def boom() -> list[dict]:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(loader, "list_plugins", boom)
    code, _, err = _run(capsys, "plugins", "list")
    assert code == 1 and err == "hermes-nb: error: RuntimeError: disk on fire\n"


def test_version() -> None:
    from hermes_nb import __version__

    out = subprocess.run(
        [sys.executable, "-m", "hermes_nb.cli", "--version"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and out.stdout.strip() == f"hermes-nb {__version__}"


def test_a_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    # `hermes-nb plugins list | head -0`: the reader is gone before anything is written
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_nb.cli", "plugins", "list"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "HERMES_HOME": str(tmp_path)},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "BrokenPipe" not in err and "Traceback" not in err


# --- a broken config.yaml --------------------------------------------------------------------------


def test_config_show_flags_a_wrong_type_and_config_set_repairs_it(
    bundled: Path, hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (hermetic / "config.yaml").write_text("plugins:\n  disabled: 5\n", encoding="utf-8")
    code, out, _ = _run(capsys, "config", "show")
    assert code == 1
    assert "plugins.disabled = 5  (config.yaml)  ✗ config plugins.disabled must be a list" in out
    assert "fix: hermes-nb config set plugins.disabled VALUE" in out
    code, out, err = _run(capsys, "config", "set", "plugins.disabled", "[]")  # the repair it names works
    assert (code, err) == (0, "")
    config.reset()
    code, out, _ = _run(capsys, "config", "show")
    assert code == 0 and "✗" not in out


def test_config_set_of_an_unknown_key_says_unknown(bundled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "config", "set", "no.such.key", "1")
    assert code == 1 and "unknown config key 'no.such.key'" in err and "looks like a secret" not in err


def test_doctor_with_a_broken_config_has_no_traceback_and_no_pass_for_a_skip(
    bundled: Path, hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (hermetic / "config.yaml").write_text("web:\n  search_backend: [brave\n", encoding="utf-8")
    code, out, err = _run(capsys, "doctor")
    assert code == 1 and "Traceback" not in out + err
    assert "plugins: not loaded: " in out and "is not valid YAML (line 3:" in out
    assert "  FAIL config.yaml: " in out
    skipped = [line for line in out.splitlines() if "not installed" in line]  # bundled: no brave, no openai
    assert skipped and all(line.startswith("  skipped ") for line in skipped)


def test_plugins_list_and_providers_agree_on_keyless_providers(
    hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hermes_nb as hn

    code, out, _ = _run(capsys, "plugins", "list", "--check")
    listed = {line.split()[0]: line for line in out.splitlines() if line.startswith("web/")}
    rows = {row.name: row for row in hn.providers("web")}
    assert code == 0 and rows["tavily"].available and rows["tavily"].keyless  # no key: its keyless mode
    assert "✅ loaded; available keyless (TAVILY_API_KEY not set" in listed["web/tavily"]
    for name, row in rows.items():  # every provider a plugin serves: the two views say the same
        if row.tier == "not in notebooks":
            continue  # Hermes-only rows (deepseek …): no plugin of ours, nothing to list
        mark = listed[f"web/{name}"].split()[3]
        assert mark == ("✅" if row.available else "❌"), name
    text = repr(hn.providers("web"))  # words beside the symbols (no emoji font: empty boxes)
    assert "✅ yes" in text and "❌ no" in text
