"""Optional features: pyproject's extras match hermes_nb.extras, and a missing one always names its extra."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib
from packaging.requirements import Requirement

from hermes_nb import extras
from hermes_nb.cli import main
from hermes_nb.extras import FEATURES, FeatureNotInstalledError

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
OPTIONAL = PROJECT["optional-dependencies"]
#: extras for this project's own tests and CI, not features a user names
TEST_ONLY = {"dev", "hermes-compat-tests", "browser"}


def _names(requirements: list[str]) -> set[str]:
    """The importable names a list of requirements provides (``dask[distributed]`` → dask, distributed)."""
    out: set[str] = set()
    for text in requirements:
        req = Requirement(text)
        out |= {req.name.lower().replace("-", "_"), *req.extras}
    return out


def _missing(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` (and anything below them) fail to import, as if they were not installed."""
    for name in list(sys.modules):
        if name.split(".")[0] in modules:
            monkeypatch.delitem(sys.modules, name)
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


# --- pyproject ---------------------------------------------------------------------------------


def test_every_user_facing_extra_is_a_feature_and_back() -> None:
    user_facing = set(OPTIONAL) - TEST_ONLY - {"all"}
    assert user_facing == {feature.extra for feature in FEATURES}


@pytest.mark.parametrize("feature", FEATURES, ids=lambda f: f.extra)
def test_each_extra_pulls_exactly_what_its_feature_imports(feature: extras.Feature) -> None:
    assert _names(OPTIONAL[feature.extra]) == set(feature.modules)


def test_all_is_every_user_facing_extra_but_not_the_heavy_ones() -> None:
    light = [f for f in FEATURES if not f.heavy]
    heavy = [f for f in FEATURES if f.heavy]
    assert [f.extra for f in heavy] == ["diffusers"]
    wanted = sorted(req for f in light for req in OPTIONAL[f.extra])
    assert sorted(OPTIONAL["all"]) == wanted
    for feature in heavy:
        assert not set(OPTIONAL[feature.extra]) & set(OPTIONAL["all"])
        assert not _names(OPTIONAL["all"]) & set(feature.modules)


def test_no_optional_module_is_a_base_dependency() -> None:
    base = _names(PROJECT["dependencies"])
    assert not base & {module for feature in FEATURES for module in feature.modules}


def test_pandas_is_in_the_base_install_because_the_demo_uses_it() -> None:
    import nbformat

    assert "pandas" in _names(PROJECT["dependencies"])
    demo = nbformat.read(ROOT / "hermes_nb" / "_demo" / "quickstart.ipynb", as_version=4)
    assert any(".to_pandas()" in cell.source for cell in demo.cells if cell.cell_type == "code")


def test_the_readme_lists_every_extra_in_one_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| .* \| `pip install 'hermes_nb\[(\w+)\]'` \|$", readme, re.M)
    assert {extra for extra, command in rows if extra == command} >= {f.extra for f in FEATURES} | {"all"}


def test_ci_runs_the_notebooks_in_a_fresh_venv_with_only_all() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    nbval = [line for line in ci.splitlines() if "--nbval" in line and not line.lstrip().startswith("#")]
    assert nbval == [
        '"$NB_VENV/bin/pytest" -q --nbval-lax --nbval-current-env '
        "--nbval-sanitize-with notebooks/nbval_sanitize.cfg notebooks"
    ]
    assert '"$PYTHON" -m venv "$NB_VENV"' in ci
    assert "\n\"$NB_VENV/bin/pip\" install -q '.[all]'\n\"$NB_VENV/bin/pip\" install -q pytest nbval\n" in ci
    assert '"$NB_VENV/bin/pip" install -q --upgrade pip' not in ci  # the pip a new venv ships


def test_no_optional_module_is_imported_around_the_helper() -> None:
    """Every optional (or late: pandas) import goes through ``extras.require``, so each names its fix."""
    optional = "|".join([*(module for feature in FEATURES for module in feature.modules), "pandas"])
    pattern = re.compile(rf"^\s*(import|from) ({optional})\b", re.M)
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "hermes_nb").rglob("*.py")
        # mcp_server is entered only through `hermes-nb mcp`, after require("mcp") in cli.py
        if not {"testing", "mcp_server"} & set(path.parts)
        and pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


# --- the helper --------------------------------------------------------------------------------


def test_require_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _missing(monkeypatch, "tqdm")
    with pytest.raises(FeatureNotInstalledError) as info:
        extras.require("tqdm.auto", "a progress bar")
    assert str(info.value).startswith("a progress bar needs tqdm, which is not installed: ")
    assert "pip install 'hermes_nb[progress]'" in str(info.value)
    assert isinstance(info.value, ImportError) and info.value.name in ("tqdm", "tqdm.auto")
    assert info.value.code == "PROVIDER_NOT_CONFIGURED"
    assert extras.install_command("distributed") == "pip install 'hermes_nb[dask]'"
    assert extras.install_command("pandas") == "pip install pandas"  # a base dependency: no extra


def test_a_broken_installed_module_keeps_its_own_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _missing(monkeypatch, "pandas", "numpy")  # pandas is there, but what it needs is not
    monkeypatch.delitem(sys.modules, "pandas")
    with pytest.raises(ImportError) as info:
        extras.require("pandas", "to_pandas()")
    assert not isinstance(info.value, FeatureNotInstalledError) and "numpy" in str(info.value)


# --- doctor ------------------------------------------------------------------------------------


def test_doctor_names_the_extra_of_a_missing_feature(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _missing(monkeypatch, "tqdm", "dask", "distributed")
    main(["doctor"])
    out = capsys.readouterr().out
    section = out.split("optional features (pip extras):", 1)[1]
    assert "install: pip install 'hermes_nb[progress]'" in section
    assert "install: pip install 'hermes_nb[dask]'" in section
    assert "ok   widgets" in section  # installed in the test environment


def test_hermes_doctor_names_the_extra_of_a_missing_feature(monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_nb.notebook.commands import run

    _missing(monkeypatch, "tqdm")
    table = run(["doctor"])
    assert "pip install 'hermes_nb[progress]'" in repr(table)


# --- each optional import site -----------------------------------------------------------------


def _search_frame() -> Any:
    from hermes_nb.web.results import SearchHit, SearchResult

    return SearchResult("q", [SearchHit("t", "https://ex.org/", "d", 1)], "fake").to_pandas()


def _batch_frame() -> Any:
    from hermes_nb.batch.result import BatchResult

    return BatchResult(["a"], items=["q"]).to_pandas()


def _providers_frame() -> Any:
    import hermes_nb as hn

    return hn.providers("web").to_pandas()


def _drift_frame() -> Any:
    from hermes_nb.cache.drift import DriftReport

    return DriftReport([], Path("x.hnb.jsonl")).to_pandas()


def _widget() -> Any:
    from hermes_nb.notebook.widgets import widget
    from hermes_nb.web.results import SearchHit, SearchResult

    return widget(SearchResult("q", [SearchHit("t", "https://ex.org/", "d", 1)], "fake"))


@pytest.mark.parametrize(
    ("site", "module", "fix"),
    [
        (_search_frame, "pandas", "pip install pandas"),
        (_batch_frame, "pandas", "pip install pandas"),
        (_providers_frame, "pandas", "pip install pandas"),
        (_drift_frame, "pandas", "pip install pandas"),
        (_widget, "anywidget", "pip install 'hermes_nb[widgets]'"),
    ],
    ids=["SearchResult", "BatchResult", "providers", "drift", "widget"],
)
def test_each_late_import_site_names_its_fix(
    monkeypatch: pytest.MonkeyPatch, site: Any, module: str, fix: str
) -> None:
    _missing(monkeypatch, module)
    with pytest.raises(FeatureNotInstalledError, match=re.escape(f"not installed: {fix} ")):
        site()


def test_a_progress_bar_without_tqdm_warns_once_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from hermes_nb import progress

    _missing(monkeypatch, "tqdm")
    monkeypatch.setattr(progress, "_warned_missing", False)
    with caplog.at_level(logging.WARNING, logger="hermes_nb.progress"):
        for _ in range(2):
            with progress.progress(3, "searching", enabled=True) as bar:
                bar.update()
                assert not bar.visible
    warned = [r.getMessage() for r in caplog.records if r.name == "hermes_nb.progress"]
    assert len(warned) == 1 and "pip install 'hermes_nb[progress]'" in warned[0]


def test_a_plugin_missing_an_optional_module_is_told_the_extra() -> None:
    from hermes_nb.plugins.load_errors import describe_load_error

    exc = ModuleNotFoundError("No module named 'tqdm'", name="tqdm")
    assert "pip install 'hermes_nb[progress]'" in describe_load_error("web/x", "/p/x", exc)
    other = ModuleNotFoundError("No module named 'leftpad'", name="leftpad")
    assert "(pip install leftpad)" in describe_load_error("web/x", "/p/x", other)
