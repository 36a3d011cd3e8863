"""The README documents every config key, hook, bundled provider and error code; its commands are real."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hermes_nb import config, errors
from hermes_nb.plugins import hooks
from hermes_nb.plugins.manifest import read_manifest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: every setting the bundled plugins declare in their plugin.yaml, by key
PLUGIN_SETTINGS = {
    setting.key: setting
    for manifest in sorted(ROOT.joinpath("plugins").glob("*/*/plugin.yaml"))
    for setting in read_manifest(manifest).settings
}


@pytest.mark.parametrize("key", sorted(config.KNOWN_KEYS))
def test_every_config_key_is_documented(key: str) -> None:
    assert f"`{key}`" in README


def test_the_bundled_plugins_declare_settings() -> None:
    assert {"web.exa.search_type", "image_gen.comfyui.steps", "web.ddgs.timeout"} <= set(PLUGIN_SETTINGS)
    assert not set(PLUGIN_SETTINGS) & set(config.KNOWN_KEYS), "a plugin's keys leave config_keys.py"


@pytest.mark.parametrize("key", sorted(PLUGIN_SETTINGS))
def test_every_plugin_setting_is_documented(key: str) -> None:
    """In its own row, or in the row of its ``<name>`` pattern, which names the provider."""
    if f"`{key}`" in README:
        return
    section, name, rest = key.split(".", 2)
    row = next((line for line in README.splitlines() if line.startswith(f"| `{section}.<name>.{rest}`")), "")
    assert f"`{name}`" in row, f"{key} ({PLUGIN_SETTINGS[key].plugin}) is not in the README's reference"


def _pattern_of(key: str) -> str:
    parts = key.split(".")
    return f"{parts[0]}.<name>.{parts[2]}" if len(parts) == 3 else key


def test_every_key_read_in_code_is_a_known_key() -> None:
    literal = re.compile(r"config\.get\(\s*\"([a-z_][a-z0-9_.]*)\"")
    sources = [*ROOT.joinpath("hermes_nb").rglob("*.py"), *ROOT.joinpath("plugins").rglob("*.py")]
    read = {key for path in sources for key in literal.findall(path.read_text(encoding="utf-8"))}
    assert read, "the scan found no config reads: the pattern is broken"
    known = {**config.KNOWN_KEYS, **PLUGIN_SETTINGS}
    unknown = sorted(k for k in read if k not in known and _pattern_of(k) not in known)
    assert unknown == []


@pytest.mark.parametrize("hook", sorted(hooks.VALID_HOOKS))
def test_every_hook_is_documented(hook: str) -> None:
    assert f"`{hook}`" in README


def test_every_error_code_is_documented() -> None:
    # every code a class declares (abstract bases declare none that is raised)
    missing = sorted(code for code in errors.CODES if f"`{code}`" not in README)
    assert missing == []


def test_every_bundled_provider_is_in_the_tables() -> None:
    names = []
    for manifest in ROOT.joinpath("plugins").glob("*/*/plugin.yaml"):
        text = manifest.read_text(encoding="utf-8")
        block = re.search(r"provides_(?:web|image|video)_providers:\s*(\[[^\]]*\]|(?:\n\s*-\s*\S+)+)", text)
        assert block, manifest
        names += re.findall(r"[a-z][a-z0-9_-]*", block.group(1))
    bundled = {"brave", "tavily", "searxng", "ddgs", "direct", "local", "openai", "xai", "fal", "diffusers"}
    assert bundled <= set(names)
    for name in names:
        assert f"| `{name}`" in README or f"alias `{name}`" in README, name


def test_the_two_commands() -> None:
    blocks = re.findall(r"```bash\n(.*?)```", README, re.DOTALL)
    commands = [line for line in blocks[0].splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    setup, tests = commands
    assert setup.endswith("hermes-nb demo") and "pip install ." in setup
    assert tests == "bash .ci/run"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pytest" in ci and "ruff check" in ci and "mypy" in ci and "--nbval" in ci
