"""Config is validated where it is set; the doctor checks by doing and gives each failure its fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

import hermes_nb as hn
from hermes_nb.cli import main
from hermes_nb.errors import InvalidInputError
from hermes_nb.notebook import doctor
from hermes_nb.plugins.config_schema import check_setting, config_problems


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize(
    ("key", "value", "needles"),
    [
        ("web.serch_backend", "brave", ["unknown config key 'web.serch_backend'", "did you mean web."]),
        ("web.search_backend", "nosuchprov", ["no web provider is called 'nosuchprov'", "known:", "brave"]),
        ("web.timeout", "abc", ["web.timeout must be a number", "'abc'"]),
        ("web.timeout", "-5", ["web.timeout must be a positive number"]),
        ("cache.mode", "sometimes", ["cache.mode must be one of read_write"]),
        ("image_gen.provider", "opnai", ["no image provider is called 'opnai'", "did you mean openai"]),
        ("web.exa.serch_type", "auto", ["did you mean web.exa.search_type"]),
        ("security.allow_private_urls", "maybe", ["must be true/false"]),
        # keys a bundled plugin declares in its plugin.yaml settings: their type and choices
        ("web.exa.search_type", "psychic", ["web.exa.search_type must be one of auto, neural"]),
        ("image_gen.comfyui.steps", "many", ["image_gen.comfyui.steps must be an integer"]),
        ("image_gen.diffusers.size", "12", ["image_gen.diffusers.size must be a string or a mapping"]),
        ("web.provider_priority", "[brave, nope]", ["no web provider is called 'nope'"]),
    ],
)
def test_cli_config_set_refuses_what_would_break(
    capsys: pytest.CaptureFixture[str], hermetic: Path, key: str, value: str, needles: list[str]
) -> None:
    code, out = _cli(capsys, "config", "set", key, value)
    assert code != 0
    for needle in needles:
        assert needle in out, out
    assert not (hermetic / "config.yaml").exists()


def test_cli_config_set_accepts_good_values(capsys: pytest.CaptureFixture[str], hermetic: Path) -> None:
    for key, value in (("web.search_backend", "brave"), ("web.timeout", "30"), ("model.default", "x")):
        code, out = _cli(capsys, "config", "set", key, value)
        assert code == 0, out
    saved = yaml.safe_load((hermetic / "config.yaml").read_text())
    assert saved["web"] == {"search_backend": "brave", "timeout": 30}


def test_runtime_set_checks_keys_and_types() -> None:
    with pytest.raises(InvalidInputError, match="did you mean web.search_backend"):
        hn.config.set("web.serch_backend", "brave")
    with pytest.raises(InvalidInputError, match=r"web\.deadline must be a number, got str"):
        hn.config.set("web.deadline", "abc")
    hn.config.set("web.myplugin.region", "eu")  # a plugin provider's own key
    hn.config.set("plugins.entries.mine.settings", {"anything": 1})
    hn.config.set("agent.max_turns", 3)  # Hermes's own section
    check_setting("web.timeout", None)  # None unsets


def test_doctor_lists_config_yaml_problems(hermetic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (hermetic / "config.yaml").write_text(
        "web:\n  serch_backend: brave\n  timeout: abc\n  search_backend: nosuchprov\nagent:\n  x: 1\n"
    )
    problems = config_problems()
    assert len(problems) == 3 and all(str(hermetic / "config.yaml") in p for p in problems)
    with (hermetic / "config.yaml").open("a") as file:  # a plugin's declared setting, checked as well
        file.write("image_gen:\n  comfyui:\n    steps: many\n")
    problems = config_problems()
    assert len(problems) == 4 and any("image_gen.comfyui.steps must be an integer" in p for p in problems)
    code, out = _cli(capsys, "doctor")
    assert code == 1
    assert "FAIL config.yaml" in out and "did you mean web.search_backend" in out and "fix:" in out


def test_doctor_checks_by_doing(hermetic: Path) -> None:
    checks = {c.name: c for c in doctor.run_checks()}
    assert all(c.ok for c in checks.values()), checks
    assert "Markdown" in checks["HTML → Markdown"].detail
    assert "hits" in checks["search (emulator)"].detail
    assert "×" in checks["image generation (emulator)"].detail
    assert "writable" in checks["store"].detail
    assert not list(hermetic.glob("images/*")), "the emulated image is not kept in the user's cache"


def test_doctor_reports_a_broken_install_with_its_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "trafilatura", None)
    (check,) = [c for c in doctor.run_checks() if c.name == "HTML → Markdown"]
    assert not check.ok and "pip install trafilatura" in check.fix


def test_doctor_reports_a_read_only_store(hermetic: Path) -> None:
    from hermes_nb.store.database import FILENAME

    hn.store.get_store().stats()
    (hermetic / FILENAME).chmod(0o444)
    try:
        (check,) = [c for c in doctor.run_checks() if c.name == "store"]
    finally:
        (hermetic / FILENAME).chmod(0o644)
    if check.ok:
        pytest.skip("running as a user who can write read-only files (root)")
    assert "cannot be used" in check.detail and check.fix


def test_the_magic_refuses_an_unknown_provider() -> None:
    from hermes_nb.notebook.commands.config import run as _cmd_config

    with pytest.raises(InvalidInputError, match="known:"):
        _cmd_config(["set", "web.search_backend", "nosuchprov"])
    with pytest.raises(InvalidInputError, match="did you mean web."):
        _cmd_config(["set", "web.serch_backend", "brave"])
    assert hn.config.get("web.search_backend") is None
