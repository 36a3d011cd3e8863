"""Twenty-odd broken plugins at once: each isolated with a clear message, every good plugin still works."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixtures.plugins.factory import make_plugin, make_web_plugin

import hermes_nb as hn
from hermes_nb.errors import HermesError
from hermes_nb.plugins import deadline, loader
from hermes_nb.plugins.manifest import MAX_MANIFEST_BYTES
from hermes_nb.plugins.registry import web_providers

RELEASE = threading.Event()  # lets the hanging plugin's abandoned thread finish after the test

#: Plugins that fail while loading: key → (manifest, __init__.py, fragments the error must contain)
LOAD_FAILURES: dict[str, tuple[str | bytes | None, str | None, tuple[str, ...]]] = {
    "web/yaml": ("name: yaml\ndescription: [oops\n", "def register(ctx):\n    pass\n", ("not valid YAML",)),
    "web/types": ("name: types\nprovides_web_providers: 7\n", None, ("provides_web_providers", "a list")),
    "web/noregister": (None, "X = 1\n", ("no register() function",)),
    "web/raising": (None, "def register(ctx):\n    raise RuntimeError('kaput')\n", ("RuntimeError", "kaput")),
    "web/importerror": (None, "import not_a_module_anywhere\n", ("ModuleNotFoundError", "pip install")),
    "web/syntax": (None, "def register(ctx)\n    pass\n", ("SyntaxError",)),
    "web/sysexit": (None, "raise SystemExit(3)\n", ("SystemExit",)),
    "web/noinit": (None, None, ("__init__.py",)),
    "web/binary": (b"name: \xff\xfe\x00bad\n", "def register(ctx):\n    pass\n", ("UTF-8",)),
    "web/huge": ("name: huge\ndescription: " + "x" * (MAX_MANIFEST_BYTES + 10) + "\n", "", ("bytes (limit",)),
    "web/recursion": (None, "def register(ctx):\n    register(ctx)\n", ("RecursionError",)),
    "web/keyerror": (None, "def register(ctx):\n    {}['missing']\n", ("KeyError", "missing")),
    "web/listmanifest": ("- just\n- a list\n", "def register(ctx):\n    pass\n", ("mapping",)),
}

_BAD_PROVIDER = """
import threading, time
from hermes_nb.provider_api import WebSearchProvider


class Provider(WebSearchProvider):
    name = "{name}"

    def is_available(self):
        return True

    def supports_extract(self):
        return True

    def supports_crawl(self):
        return True

    def search(self, query, limit=5):
        {search}

    def extract(self, urls, **kw):
        {extract}

    def crawl(self, url, **kw):
        {crawl}


def register(ctx):
    ctx.register_web_search_provider(Provider())
"""

_OK_SEARCH = 'return {"success": True, "data": {"web": [{"url": "https://ok.test/", "title": "ok"}]}}'
_OK_EXTRACT = 'return [{"url": u, "title": "t", "content": "c"} for u in urls]'
_OK_CRAWL = 'return {"results": [{"url": url, "title": "t", "content": "c"}]}'

#: Providers that load but break their contract: name → (search, extract, crawl bodies, capability, fragments)
CONTRACT_FAILURES: dict[str, tuple[str, str, str, str, tuple[str, ...]]] = {
    "listsearch": ("return [{'url': 'https://a.test/'}]", _OK_EXTRACT, _OK_CRAWL, "search", ("PARSE",)),
    "webz": ("return {'success': True, 'data': {'webz': []}}", _OK_EXTRACT, _OK_CRAWL, "search", ("'webz'",)),
    "fortytwo": (_OK_SEARCH, "return 42", _OK_CRAWL, "extract", ("int: 42",)),
    "rowstr": (_OK_SEARCH, "return ['https://a.test/']", _OK_CRAWL, "extract", ("result 0 is a str",)),
    "crawlstr": (_OK_SEARCH, _OK_EXTRACT, "return 'pages'", "crawl", ("crawl contract",)),
    "raises": ("raise ValueError('boom')", _OK_EXTRACT, _OK_CRAWL, "search", ("ValueError", "boom")),
    "hangs": ("__import__('tests_release').wait(90)", _OK_EXTRACT, _OK_CRAWL, "search", ("TIMEOUT", "hangs")),
    "failure": ("return {'success': False, 'error': 'quota gone'}", _OK_EXTRACT, _OK_CRAWL, "search",
                ("quota gone",)),
}


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    import sys
    import types

    root = tmp_path / "bundled"
    make_web_plugin(root, "web/healthy", "healthy")
    for key, (manifest, init, _) in LOAD_FAILURES.items():
        make_plugin(root, key, manifest, init)
    for name, (search, extract, crawl, _, _) in CONTRACT_FAILURES.items():
        body = _BAD_PROVIDER.format(name=name, search=search, extract=extract, crawl=crawl)
        make_plugin(root, f"web/{name}", f"name: {name}\nprovides_web_providers:\n  - {name}\n", body)
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(root))
    release = types.ModuleType("tests_release")
    release.wait = RELEASE.wait  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tests_release", release)
    monkeypatch.setattr(deadline, "GRACE_S", 0.0)
    hn.config.set("web.deadline", 0.5)
    hn.config.set("web.max_retries", 0)
    RELEASE.clear()
    yield root
    RELEASE.set()


def test_at_least_20_broken_plugins() -> None:
    assert len(LOAD_FAILURES) + len(CONTRACT_FAILURES) >= 20


def test_each_loader_failure_is_isolated_with_a_clear_message(bundled: Path) -> None:
    loader.load_plugins()
    rows = {row["key"]: row for row in loader.list_plugins()}
    for key, (_, _, fragments) in LOAD_FAILURES.items():
        row = rows.get(key)
        problems = " ".join(str(p) for p in loader.get_plugin_manager().problems)
        text = (row["error"] if row else "") or problems
        assert text, f"{key}: no error recorded"
        for fragment in fragments:
            assert fragment in text, (key, fragment, text[:300])
    assert rows["web/healthy"]["error"] is None and web_providers.get("healthy") is not None
    assert hn.search("q", backend="healthy").provider == "healthy"


@pytest.mark.parametrize("name", sorted(CONTRACT_FAILURES))
def test_each_contract_violation_is_an_error_naming_the_provider(bundled: Path, name: str) -> None:
    _, _, _, capability, fragments = CONTRACT_FAILURES[name]
    calls = {
        "search": lambda: hn.search("q", backend=name, no_cache=True),
        "extract": lambda: hn.extract(["https://a.test/"], backend=name, no_cache=True),
        "crawl": lambda: hn.crawl("https://a.test/", depth=0, limit=1, backend=name, no_cache=True),
    }
    with pytest.raises(HermesError) as info:
        calls[capability]()
    text = f"{info.value.code} {info.value.message}"
    assert name in text
    for fragment in fragments:
        assert fragment in text, (name, fragment, text[:300])
    assert hn.search("q", backend="healthy", no_cache=True).provider == "healthy"  # the good one still works


def test_a_huge_answer_is_cut_to_the_limit(bundled: Path) -> None:
    flood = "return {'success': True, 'data': {'web': [{'url': f'https://f{i}.t/'} for i in range(50000)]}}"
    body = _BAD_PROVIDER.format(
        name="flood",
        search=flood,
        extract=_OK_EXTRACT,
        crawl=_OK_CRAWL,
    )
    make_plugin(bundled, "web/flood", "name: flood\nprovides_web_providers:\n  - flood\n", body)
    # Building 50,000 hits is not a hang: the fixture's 0.5 s deadline (meant for the hanging
    # providers) was missed once in a full-suite run with both cores kept busy by other processes.
    hn.config.set("web.deadline", 60)
    assert len(hn.search("q", limit=5, backend="flood", no_cache=True)) == 5


def test_a_tool_returning_non_json_is_an_error_result(bundled: Path) -> None:
    make_plugin(
        bundled,
        "tools/nonjson",
        "name: nonjson\nprovides_tools: [bad_tool]\n",
        """
        def bad(args, **kw):
            return {1, 2, 3}

        def register(ctx):
            ctx.register_tool(name="bad_tool", toolset="bad", handler=bad,
                              schema={"name": "bad_tool", "description": "returns a set", "parameters": {}})
        """,
    )
    loader.load_plugins()
    result = hn.tools.call("bad_tool", {})
    assert "error" in result and "tool_result_contract" in result["error"]
