"""Installs declare what the code imports; extraction never passes markup off as content."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomllib

from hermes_nb import config
from hermes_nb.errors import ContentFetchError
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers
from hermes_nb.testing import Emulator, use_emulator
from hermes_nb.web import content

REPO = Path(__file__).resolve().parents[2]
#: Vendor SDKs that Hermes's own plugins bring; the compat layer imports them only when such a plugin calls.
PLUGIN_SUPPLIED = {"firecrawl"}
ARTICLE = "/site/articles/hello-world.html"


def _guarded(node: ast.Try) -> bool:
    # ``try: import x`` / ``except ImportError``: an optional package, reported at run time with its fix.
    for handler in node.handlers:
        names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names):
            return True
    return False


def _imports(node: ast.AST, names: set[str]) -> None:
    if isinstance(node, ast.Try) and _guarded(node):
        return
    if isinstance(node, ast.Import):
        names.update(alias.name.split(".")[0] for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        names.add(node.module.split(".")[0])
    for child in ast.iter_child_nodes(node):
        _imports(child, names)


def _imported_top_level_names() -> set[str]:
    names: set[str] = set()
    for folder in ("hermes_nb", "plugins"):
        for path in (REPO / folder).rglob("*.py"):
            _imports(ast.parse(path.read_text(encoding="utf-8")), names)
    return names


def _requirement_name(spec: str) -> str:
    match = re.match(r"[A-Za-z0-9_.\-]+", spec)
    assert match, spec
    return match.group(0).lower().replace("_", "-")


def test_every_directly_imported_package_is_declared_without_extras() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {_requirement_name(spec) for spec in project["dependencies"]}
    for specs in project["optional-dependencies"].values():
        declared |= {_requirement_name(spec) for spec in specs}
    distributions = importlib.metadata.packages_distributions()
    ours = {"hermes_nb", *PLUGIN_SUPPLIED}
    missing = {}
    for name in sorted(_imported_top_level_names() - set(sys.stdlib_module_names) - ours):
        dists = {d.lower().replace("_", "-") for d in distributions.get(name, [])}
        if dists and not dists & declared:
            missing[name] = sorted(dists)
    assert missing == {}, f"imported but not declared in pyproject.toml: {missing}"
    # trafilatura's HTML cleaner comes through an extra that old pips skip: it must be a direct dependency.
    base = {_requirement_name(spec) for spec in project["dependencies"]}
    assert {"lxml", "lxml-html-clean", "trafilatura"} <= base


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=13) as server:
        yield server


@pytest.fixture
def direct(emu: Emulator) -> Iterator[object]:
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu):
        yield web_providers.get("direct")


def _without_converter(monkeypatch: pytest.MonkeyPatch) -> None:
    # What an install without the HTML cleaner looks like: importing the converter fails.
    monkeypatch.setitem(sys.modules, "trafilatura", None)


def test_missing_converter_is_a_per_url_error_with_the_fix(
    direct, emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_converter(monkeypatch)
    good = emu.page_url("/site/plain.txt")
    page, text = direct.extract([emu.page_url(ARTICLE), good])
    assert page["content"] == "" and page["error_code"] == ContentFetchError.code
    assert "pip install trafilatura" in page["error"] and "<" not in page["content"]
    assert "error" not in text and "Plain text notes" in text["content"]


def test_missing_converter_fails_the_page_not_the_crawl(
    direct, emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_converter(monkeypatch)
    result = direct.crawl(emu.page_url(ARTICLE), depth=0, limit=1)
    (page,) = result["results"]
    assert page["error"] and "pip install trafilatura" in page["error"] and not page.get("content")


def test_missing_html_cleaner_names_its_package() -> None:
    exc = ImportError("lxml.html.clean module is now a separate project lxml_html_clean.")
    assert content._missing_package(exc) == "lxml_html_clean"


def test_a_failing_html_parser_degrades_to_visible_text_never_markup(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str, *, url: str | None = None) -> content.Document:
        raise ValueError("parser crashed")

    monkeypatch.setattr(content, "html_to_markdown", broken)
    html = "<html><head><title>T</title><style>p{}</style></head><body><p>Visible <b>words</b></p></body>"
    doc = content.convert(html, "text/html", url="https://example.test/")
    assert doc.content == "Visible words" and "parse_warning" in doc.metadata
