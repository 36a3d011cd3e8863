"""Hypothesis fuzzing: magic arguments, manifests, envelopes, the URL guard and the calculator never raise
anything but their documented errors, and never hang (examples and time per example are bounded)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")  # a dev dependency; skipped where it is not installed
from hypothesis import HealthCheck, given, settings  # noqa: E402 - after the importorskip above
from hypothesis import strategies as st  # noqa: E402

from hermes_nb.errors import HermesError  # noqa: E402
from hermes_nb.net import url_guard  # noqa: E402
from hermes_nb.plugins.manifest import manifest_from_dict  # noqa: E402
from hermes_nb.web.envelopes import (  # noqa: E402
    parse_crawl_envelope,
    parse_extract_envelope,
    parse_search_envelope,
)

BOUNDED = settings(
    max_examples=150,
    deadline=2000,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=30,
)
envelope_like = st.one_of(
    json_values,
    st.fixed_dictionaries({"success": st.booleans(), "data": json_values}),
    st.fixed_dictionaries({"success": st.just(True), "data": st.fixed_dictionaries({"web": json_values})}),
    st.fixed_dictionaries({"results": st.lists(json_values, max_size=6)}),
    st.lists(st.dictionaries(st.sampled_from(["url", "title", "content", "error", "metadata"]), json_values)),
)


@BOUNDED
@given(envelope_like, st.integers(min_value=1, max_value=20))
def test_envelope_normalisers_raise_only_hermes_errors(env: Any, limit: int) -> None:
    for parse in (
        lambda: parse_search_envelope(env, "fuzz", limit),
        lambda: parse_extract_envelope(env, ["https://a.test/", "https://b.test/"], "fuzz"),
        lambda: parse_crawl_envelope(env, "fuzz", limit),
    ):
        try:
            out = parse()
        except HermesError:
            continue
        assert out is not None


@BOUNDED
@given(
    st.dictionaries(
        st.sampled_from(
            ["name", "version", "description", "kind", "provides_tools", "provides_hooks", "author",
             "provides_web_providers", "provides_image_providers", "requires_env", "pip_dependencies", "x"]
        ),
        json_values,
        max_size=8,
    )
)
def test_manifest_parsing_raises_only_its_error(data: dict[str, Any]) -> None:
    try:
        manifest_from_dict(data, where="fuzz/plugin.yaml")
    except HermesError:
        pass


@BOUNDED
@given(st.one_of(st.text(max_size=80), st.from_regex(r"https?://[\w\.\-\[\]:%@]{0,40}(/[\w\.\-%?=&]{0,20})?")))
def test_url_guard_raises_only_hermes_errors(url: str) -> None:
    try:
        url_guard.check_url(url, resolver=lambda host, port: ["127.0.0.1"])
    except HermesError:
        return
    raise AssertionError(f"{url!r} passed the guard although it resolves to loopback")


def _calculator() -> ModuleType:
    plugin = Path(__file__).resolve().parents[2] / "plugins" / "calculator"
    spec = importlib.util.spec_from_file_location(
        "hermes_nb_fuzz_calculator", plugin / "__init__.py", submodule_search_locations=[str(plugin)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_CALC = _calculator()
expressions = st.one_of(
    st.text(alphabet="0123456789+-*/%().e ,sqrtpilogfactorialabs_", max_size=40),
    st.text(max_size=40),
    st.builds(
        lambda a, op, b: f"{a}{op}{b}",
        st.integers(-(10**6), 10**6),
        st.sampled_from(["**", "*", "/", "%", "//"]),
        st.integers(-50, 50),
    ),
)


@BOUNDED
@given(expressions)
def test_calculator_answers_json_for_any_expression(expression: str) -> None:
    result = json.loads(_CALC.tools.calculate({"expression": expression}))
    assert isinstance(result, dict) and ("result" in result or "error" in result)


@BOUNDED
@given(st.text(max_size=60))
def test_magic_argument_parsing_raises_only_usage_errors(line: str) -> None:
    from IPython.core.error import UsageError

    from hermes_nb.notebook import magics

    for method in ("web_search", "web_extract", "imagine"):
        func = getattr(magics.HermesMagics, method, None)
        if func is None:
            continue
        try:
            magics._parse(func, line)
        except (UsageError, SystemExit):  # argparse exits on a bad option: the magic shows usage
            pass
