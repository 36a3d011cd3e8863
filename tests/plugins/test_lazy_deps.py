"""Lazy dependencies: allow-list, safe specs, config switch, never installing without asking."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from hermes_nb import config
from hermes_nb.plugins import lazy_deps
from hermes_nb.plugins.lazy_deps import FeatureUnavailable


@pytest.fixture
def fake_feature(monkeypatch: pytest.MonkeyPatch) -> str:
    """An allow-listed feature whose package is certainly not installed."""
    monkeypatch.setitem(lazy_deps.LAZY_DEPS, "test.missing", ("hermes-nb-surely-absent-pkg==1.0",))
    return "test.missing"


@pytest.fixture
def spy_subprocess(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []

    def fake_run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(lazy_deps.subprocess, "run", fake_run)
    return calls


@pytest.fixture
def interactive(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in lazy_deps._CI_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(lazy_deps, "_interactive", lambda: True)


def test_hermes_allow_list_plus_ours() -> None:
    assert lazy_deps.LAZY_DEPS["search.exa"] == ("exa-py==2.10.2",)
    assert lazy_deps.LAZY_DEPS["image.fal"] == ("fal-client==0.13.1",)
    assert lazy_deps.LAZY_DEPS["search.ddgs"] == ("ddgs>=9",)
    assert lazy_deps.LAZY_DEPS["image.diffusers"] == ("diffusers", "transformers", "torch==2.13.0")
    assert all(lazy_deps._spec_is_safe(s) for specs in lazy_deps.LAZY_DEPS.values() for s in specs)


@pytest.mark.parametrize(
    "spec",
    [
        "pkg @ https://evil.example/pkg.whl",
        "git+https://example.com/x.git",
        "https://example.com/x.tar.gz",
        "./local/path",
        "/abs/path",
        "pkg; rm -rf /",
        "pkg && curl x",
        "pkg|sh",
        "$(whoami)",
        "pkg`id`",
        "pkg --index-url http://x",
        "-e .",
        "a" * 201,
        "",
    ],
)
def test_unsafe_specs_are_refused(spec: str, monkeypatch: pytest.MonkeyPatch, spy_subprocess: list) -> None:
    assert not lazy_deps._spec_is_safe(spec)
    monkeypatch.setitem(lazy_deps.LAZY_DEPS, "test.unsafe", (spec,))
    with pytest.raises(FeatureUnavailable, match="unsafe"):
        lazy_deps.ensure("test.unsafe")
    assert spy_subprocess == []


@pytest.mark.parametrize(
    "spec", ["ddgs", "ddgs>=9", "torch==2.13.0", "pkg[extra,other]>=1,<2", "a.b-c_d~=1.4"]
)
def test_plain_specs_are_safe(spec: str) -> None:
    assert lazy_deps._spec_is_safe(spec)


def test_unknown_feature() -> None:
    with pytest.raises(FeatureUnavailable, match="unknown feature"):
        lazy_deps.ensure("search.nope")
    assert lazy_deps.is_available("search.nope") is False


def test_installed_feature_returns_without_installing(
    monkeypatch: pytest.MonkeyPatch, spy_subprocess: list
) -> None:
    monkeypatch.setitem(lazy_deps.LAZY_DEPS, "test.present", ("pyyaml>=5",))
    lazy_deps.ensure("test.present")
    assert lazy_deps.is_available("test.present")
    assert lazy_deps.feature_missing("test.present") == ()
    assert lazy_deps.feature_install_command("test.present") == ""
    assert spy_subprocess == []


def test_wrong_installed_version_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(lazy_deps.LAZY_DEPS, "test.old", ("pyyaml==0.0.1",))
    assert lazy_deps.feature_missing("test.old") == ("pyyaml==0.0.1",)


def test_non_interactive_never_installs(fake_feature: str, spy_subprocess: list) -> None:
    # pytest captures stdin/stdout: no TTY, exactly like a kernel or CI job
    with pytest.raises(FeatureUnavailable) as info:
        lazy_deps.ensure(fake_feature)
    assert spy_subprocess == []
    assert "pip install hermes-nb-surely-absent-pkg==1.0" in str(info.value)
    assert info.value.command == "pip install hermes-nb-surely-absent-pkg==1.0"
    assert info.value.code == "PROVIDER_NOT_CONFIGURED"
    assert lazy_deps.feature_install_command(fake_feature) == "pip install hermes-nb-surely-absent-pkg==1.0"


def test_prompt_false_never_installs_even_on_a_terminal(
    fake_feature: str, spy_subprocess: list, interactive: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("builtins.input", lambda *a: pytest.fail("must not prompt"))
    with pytest.raises(FeatureUnavailable, match="never installs without asking"):
        lazy_deps.ensure(fake_feature, prompt=False)
    assert spy_subprocess == []


def test_ci_environment_never_installs(
    fake_feature: str, spy_subprocess: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(FeatureUnavailable):
        lazy_deps.ensure(fake_feature)
    assert spy_subprocess == []


def test_disabled_by_config(fake_feature: str, spy_subprocess: list, interactive: None) -> None:
    config.set("security.allow_lazy_installs", False)
    with pytest.raises(FeatureUnavailable, match="security.allow_lazy_installs=false"):
        lazy_deps.ensure(fake_feature)
    assert spy_subprocess == []


def test_disabled_by_config_file(fake_feature: str, spy_subprocess: list, interactive: None) -> None:
    (config.get_hermes_home() / "config.yaml").write_text("security:\n  allow_lazy_installs: false\n")
    with pytest.raises(FeatureUnavailable, match="allow_lazy_installs"):
        lazy_deps.ensure(fake_feature)
    assert spy_subprocess == []


def test_disabled_by_env(
    fake_feature: str, spy_subprocess: list, interactive: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_DISABLE_LAZY_INSTALLS", "1")
    with pytest.raises(FeatureUnavailable, match="HERMES_DISABLE_LAZY_INSTALLS"):
        lazy_deps.ensure(fake_feature)
    assert spy_subprocess == []


def test_broken_config_fails_closed(fake_feature: str, spy_subprocess: list, interactive: None) -> None:
    (config.get_hermes_home() / "config.yaml").write_text("security: [unclosed\n")
    with pytest.raises(FeatureUnavailable, match="config unreadable"):
        lazy_deps.ensure(fake_feature)
    assert spy_subprocess == []


def test_interactive_declined(
    fake_feature: str, spy_subprocess: list, interactive: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("builtins.input", lambda *a: "n")
    with pytest.raises(FeatureUnavailable, match="declined"):
        lazy_deps.ensure(fake_feature)
    assert spy_subprocess == []


def test_interactive_yes_installs_with_this_python_then_reverifies(
    fake_feature: str, spy_subprocess: list, interactive: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts: list[str] = []
    monkeypatch.setattr("builtins.input", lambda text: prompts.append(text) or "")
    installed = {"done": False}
    real_missing = lazy_deps.feature_missing

    def missing(feature: str) -> tuple[str, ...]:
        return () if installed["done"] else real_missing(feature)

    def fake_run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        spy_subprocess.append(cmd)
        installed["done"] = True
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(lazy_deps, "feature_missing", missing)
    monkeypatch.setattr(lazy_deps.subprocess, "run", fake_run)
    lazy_deps.ensure(fake_feature)
    assert spy_subprocess == [[sys.executable, "-m", "pip", "install", "hermes-nb-surely-absent-pkg==1.0"]]
    assert "[Y/n]" in prompts[0]


def test_install_that_does_not_help_is_reported(
    fake_feature: str, spy_subprocess: list, interactive: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("builtins.input", lambda *a: "y")
    with pytest.raises(FeatureUnavailable, match="still missing"):
        lazy_deps.ensure(fake_feature)
    assert len(spy_subprocess) == 1


def test_pip_failure_is_reported_redacted(
    fake_feature: str, interactive: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.set_key("SOME_API_KEY", "sk-verysecretvalue42")
    monkeypatch.setattr("builtins.input", lambda *a: "yes")

    def failing(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: 403 with token sk-verysecretvalue42")

    monkeypatch.setattr(lazy_deps.subprocess, "run", failing)
    with pytest.raises(FeatureUnavailable, match="exit 1") as info:
        lazy_deps.ensure(fake_feature)
    assert "sk-verysecretvalue42" not in str(info.value)
