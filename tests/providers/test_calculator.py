"""The bundled calculator plugin: the guide's values, the safe evaluator, loading through the loader."""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from paths import REPO

from hermes_nb import tools
from hermes_nb.plugins import hooks, tool_registry

PLUGIN_DIR = REPO / "plugins" / "calculator"


def _load_plugin() -> ModuleType:
    """Import the plugin package the way the loader does (own name, relative imports working)."""
    name = "hermes_nb_test_calculator"
    spec = importlib.util.spec_from_file_location(
        name, PLUGIN_DIR / "__init__.py", submodule_search_locations=[str(PLUGIN_DIR)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def plugin() -> ModuleType:
    return _load_plugin()


def calc(plugin: ModuleType, expression: str) -> dict[str, Any]:
    result = plugin.tools.calculate({"expression": expression})
    assert isinstance(result, str)
    return json.loads(result)


def convert(plugin: ModuleType, value: Any, from_unit: str, to_unit: str) -> dict[str, Any]:
    return json.loads(plugin.tools.unit_convert({"value": value, "from_unit": from_unit, "to_unit": to_unit}))


# -- values from the guide -------------------------------------------------------------------------


def test_guide_expressions(plugin: ModuleType) -> None:
    assert calc(plugin, "2**16") == {"expression": "2**16", "result": 65536}
    assert calc(plugin, "sqrt(144)") == {"expression": "sqrt(144)", "result": 12.0}
    assert calc(plugin, "pi * 5**2")["result"] == pytest.approx(78.53981633974483)
    assert calc(plugin, "sqrt(2) * pi")["result"] == pytest.approx(4.442882938158366)


def test_guide_conversions(plugin: ModuleType) -> None:
    assert convert(plugin, 100, "F", "C") == {"input": "100 F", "result": 37.7778, "output": "37.7778 C"}
    assert convert(plugin, 5, "km", "mi") == {"input": "5 km", "result": 3.106864, "output": "3.106864 mi"}
    assert convert(plugin, 1.5, "TB", "GB") == {"input": "1.5 TB", "result": 1536.0, "output": "1536.0 GB"}
    assert convert(plugin, 0, "C", "K")["result"] == 273.15
    assert convert(plugin, 2, "hr", "min")["result"] == 120.0


def test_conversion_errors(plugin: ModuleType) -> None:
    assert convert(plugin, 1, "parsec", "m") == {"error": "Cannot convert parsec → m"}
    assert convert(plugin, 1, "kg", "km") == {"error": "Cannot convert kg → km"}
    assert json.loads(plugin.tools.unit_convert({"value": 1})) == {
        "error": "Need value, from_unit, and to_unit"
    }
    assert convert(plugin, "abc", "m", "km")["error"].startswith("Conversion failed")
    assert "finite" in convert(plugin, "inf", "m", "km")["error"]


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("-2 ** 2", -4),
        ("7 // 2 + 7 % 2", 4),
        ("10 / 4", 2.5),
        ("abs(-3) + round(2.567, 2)", 5.57),
        ("max(1, 5, 3) - min(4, 2)", 3),
        ("floor(2.7) + ceil(2.1)", 5),
        ("log10(1000) + log2(8)", 6.0),
        ("factorial(5)", 120),
        ("pow(2, 10)", 1024),
        ("pow(3, 200, 7)", pow(3, 200, 7)),
        ("e", 2.718281828459045),
        ("2 ** -1", 0.5),
    ],
)
def test_arithmetic(plugin: ModuleType, expression: str, value: Any) -> None:
    assert calc(plugin, expression)["result"] == pytest.approx(value)


# -- hostile input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("__import__('os')", "not allowed"),
        ("__import__('os').system('id')", "not allowed"),
        ("().__class__", "attribute access"),
        ("().__class__.__bases__[0].__subclasses__()", "not allowed"),
        ("(1).__class__", "attribute access"),
        ("[1, 2][0]", "subscripts"),
        ("'a' * 3", "only numbers"),
        ("open('/etc/passwd')", "not allowed"),
        ("eval('1')", "not allowed"),
        ("x", "unknown name"),
        ("lambda: 1", "Lambda"),
        ("[x for x in range(10)]", "not supported"),
        ("True + 1", "only numbers"),
        ("sqrt(x=4)", "keyword"),
        ("1 << 100000", "not supported"),
        ("9**9**9", "exponent"),
        ("2 ** 10001", "exponent"),
        ("10 ** 5000", "digits"),
        ("(10 ** 3000) * (10 ** 3000)", "digits"),
        ("factorial(100000)", "factorial"),
        ("factorial(2.5)", "factorial"),
        ("(-8) ** (1/3)", "real number"),
        ("2 +", "not a valid expression"),
        ("1" + " + 1" * 600, "longer than"),
        ("(" * 300 + "1" + ")" * 300, "Invalid"),
    ],
)
def test_hostile_expressions_are_refused_with_json(plugin: ModuleType, expression: str, reason: str) -> None:
    started = time.perf_counter()
    result = calc(plugin, expression)
    assert time.perf_counter() - started < 1.0
    assert "result" not in result
    assert result["error"].startswith("Invalid")
    assert reason in result["error"]


def test_numeric_failures(plugin: ModuleType) -> None:
    assert calc(plugin, "1/0") == {"expression": "1/0", "error": "Division by zero"}
    assert calc(plugin, "5 % 0")["error"] == "Division by zero"
    assert calc(plugin, "exp(1000)")["error"] == "Invalid: result too large"
    assert calc(plugin, "2.0 ** 5000")["error"] == "Invalid: result too large"
    assert calc(plugin, "sqrt(-1)")["error"].startswith("Invalid: math domain error")
    assert json.loads(plugin.tools.calculate({})) == {"error": "No expression provided"}


# -- registration ---------------------------------------------------------------------------------------


class RecordingContext:
    """The part of PluginContext the calculator uses, wired to the real registries."""

    def __init__(self) -> None:
        self.skills: list[tuple[str, Path, str]] = []

    def register_tool(self, **kw: Any) -> None:
        tools.registry.register(owner="calculator", **kw)

    def register_hook(self, name: str, callback: Any) -> None:
        hooks.register_hook(name, callback, owner="calculator")

    def register_skill(self, name: str, path: Path, description: str = "") -> None:
        self.skills.append((name, path, description))


def test_register_wires_tools_hook_and_skill(plugin: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tool_registry, "ensure_plugins_loaded", lambda capability: None)
    ctx = RecordingContext()
    plugin.register(ctx)
    assert tools.registry.get_toolset_for_tool("calculate") == "calculator"
    assert tools.registry.get_toolset_for_tool("unit_convert") == "calculator"
    ((name, path, _),) = ctx.skills
    assert name == "calculator" and path.is_file() and "unit_convert" in path.read_text()
    plugin.call_log.clear()
    assert tools.call("calculate", {"expression": "2**16"}, task_id="t-1")["result"] == 65536
    assert tools.call("unit_convert", {"value": "100", "from_unit": "F", "to_unit": "C"})["result"] == 37.7778
    assert [(c["tool"], c["session"]) for c in plugin.call_log] == [
        ("calculate", "t-1"),
        ("unit_convert", None),
    ]
    openai = {d["function"]["name"]: d for d in tools.schemas(toolsets=["calculator"])}
    assert openai["calculate"]["function"]["parameters"]["required"] == ["expression"]


def test_manifest_matches_the_guide() -> None:
    import yaml

    manifest = yaml.safe_load((PLUGIN_DIR / "plugin.yaml").read_text(encoding="utf-8"))
    assert manifest["name"] == "calculator"
    assert manifest["provides_tools"] == ["calculate", "unit_convert"]
    assert manifest["provides_hooks"] == ["post_tool_call"]


def test_bundled_plugin_loads_through_the_loader() -> None:
    loader = pytest.importorskip("hermes_nb.plugins.loader")
    loader.load_plugins()
    rows = {row["key"]: row for row in loader.list_plugins()}
    row = rows["calculator"]
    assert row["error"] is None, row
    assert sorted(row["tools"]) == ["calculate", "unit_convert"]
    assert row["hooks"] == ["post_tool_call"]
    assert row["skills"] == ["calculator:calculator"]
    assert tools.call("calculate", {"expression": "sqrt(144)"})["result"] == 12.0
    entry = tools.registry.get_entry("calculate")
    assert entry is not None and entry.owner == "calculator"
