"""Tool handlers of the calculator plugin: a safe expression evaluator and unit conversion.

The Hermes guide evaluates with ``eval``; this version walks the ``ast`` instead and only knows
numbers, arithmetic operators, whitelisted math functions and the constants ``pi``/``e``/``tau``.
Everything else (names, attributes, subscripts, strings, lambdas, ...) is refused, and so are
results that would take unbounded time or memory (huge exponents, factorials, digit counts).
"""

from __future__ import annotations

import ast
import json
import math
import operator
from collections.abc import Callable
from typing import Any

MAX_EXPRESSION_CHARS = 1_000
MAX_EXPONENT = 10_000
MAX_DIGITS = 4_000  # below Python's int→str conversion limit (4300), so results serialise
MAX_FACTORIAL = 1_000

_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class _Refused(ValueError):  # noqa: N818 - reported as "Invalid: <reason>", never raised out
    """The expression is well-formed but not allowed (unsafe or too expensive)."""


def _check_size(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > MAX_DIGITS * 3.33:
        raise _Refused(f"result has more than {MAX_DIGITS} digits")
    return value


def _power(base: Any, exponent: Any) -> Any:
    if abs(exponent) > MAX_EXPONENT:
        raise _Refused(f"exponent {exponent:g} is larger than the limit of {MAX_EXPONENT}")
    big_int = isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1
    if big_int and exponent * math.log10(abs(base)) > MAX_DIGITS:
        raise _Refused(f"result has more than {MAX_DIGITS} digits")
    return _check_size(base**exponent)


def _factorial(n: Any) -> int:
    if not isinstance(n, int) or n < 0:
        raise _Refused("factorial() takes a non-negative integer")
    if n > MAX_FACTORIAL:
        raise _Refused(f"factorial({n}) is larger than the limit of factorial({MAX_FACTORIAL})")
    return math.factorial(n)


def _pow(*args: Any) -> Any:
    if len(args) == 2:
        return _power(*args)
    if len(args) == 3 and all(isinstance(a, int) for a in args):
        return pow(*args)
    raise _Refused("pow() takes (base, exponent) or three integers (base, exponent, modulus)")


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "pow": _pow,
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "exp": math.exp,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "floor": math.floor,
    "ceil": math.ceil,
    "factorial": _factorial,
}


def _eval(node: ast.AST) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        if type(node.value) in (int, float):
            return node.value
        raise _Refused(f"only numbers are allowed, not {type(node.value).__name__} values")
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        op = _BINARY.get(type(node.op))
        if op is None:
            raise _Refused(f"operator {type(node.op).__name__} is not supported")
        return _check_size(op(left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise _Refused(f"unknown name {node.id!r} (constants: {', '.join(_CONSTANTS)})")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
            raise _Refused(f"function {name!r} is not allowed (allowed: {', '.join(sorted(_FUNCTIONS))})")
        if node.keywords:
            raise _Refused("keyword arguments are not supported")
        return _check_size(_FUNCTIONS[node.func.id](*(_eval(arg) for arg in node.args)))
    if isinstance(node, ast.Attribute):
        raise _Refused("attribute access is not allowed")
    if isinstance(node, ast.Subscript):
        raise _Refused("subscripts are not allowed")
    raise _Refused(f"{type(node).__name__} is not supported in math expressions")


def evaluate(expression: str) -> int | float:
    """Value of ``expression``; ``ValueError``/``ZeroDivisionError``/``OverflowError`` when it has none."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise _Refused(f"expression is longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
        raise _Refused(f"not a valid expression ({type(exc).__name__})") from exc
    try:
        value = _eval(tree)
    except RecursionError as exc:
        raise _Refused("expression is nested too deeply") from exc
    if isinstance(value, complex):
        raise _Refused("result is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise OverflowError("result is not finite")
    return value


def calculate(args: dict, **kwargs: Any) -> str:
    """Evaluate a math expression safely; always returns a JSON string."""
    expression = str(args.get("expression") or "").strip()
    if not expression:
        return json.dumps({"error": "No expression provided"})
    try:
        result = evaluate(expression)
        return json.dumps({"expression": expression, "result": result})
    except ZeroDivisionError:
        return json.dumps({"expression": expression, "error": "Division by zero"})
    except OverflowError:
        return json.dumps({"expression": expression, "error": "Invalid: result too large"})
    except Exception as exc:
        return json.dumps({"expression": expression, "error": f"Invalid: {exc}"})


# Conversion tables — values are in base units
_LENGTH = {"m": 1, "km": 1000, "mi": 1609.34, "ft": 0.3048, "in": 0.0254, "cm": 0.01}
_WEIGHT = {"kg": 1, "g": 0.001, "lb": 0.453592, "oz": 0.0283495}
_DATA = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}
_TIME = {"s": 1, "ms": 0.001, "min": 60, "hr": 3600, "day": 86400}
_TEMPERATURES = {"C", "F", "K"}


def _convert_temp(value: float, from_u: str, to_u: str) -> float:
    celsius = {"F": (value - 32) * 5 / 9, "K": value - 273.15}.get(from_u, value)
    return {"F": celsius * 9 / 5 + 32, "K": celsius + 273.15}.get(to_u, celsius)


def unit_convert(args: dict, **kwargs: Any) -> str:
    """Convert between units; always returns a JSON string."""
    value = args.get("value")
    from_unit = str(args.get("from_unit") or "").strip()
    to_unit = str(args.get("to_unit") or "").strip()
    if value is None or not from_unit or not to_unit:
        return json.dumps({"error": "Need value, from_unit, and to_unit"})
    try:
        number = float(value)
        if not math.isfinite(number):
            return json.dumps({"error": "value must be a finite number"})
        if from_unit.upper() in _TEMPERATURES and to_unit.upper() in _TEMPERATURES:
            result = round(_convert_temp(number, from_unit.upper(), to_unit.upper()), 4)
            return json.dumps(
                {"input": f"{value} {from_unit}", "result": result, "output": f"{result} {to_unit}"}
            )
        for table in (_LENGTH, _WEIGHT, _DATA, _TIME):
            lowered = {k.lower(): v for k, v in table.items()}
            if from_unit.lower() in lowered and to_unit.lower() in lowered:
                result = round(number * lowered[from_unit.lower()] / lowered[to_unit.lower()], 6)
                return json.dumps(
                    {"input": f"{value} {from_unit}", "result": result, "output": f"{result} {to_unit}"}
                )
        return json.dumps({"error": f"Cannot convert {from_unit} → {to_unit}"})
    except Exception as exc:
        return json.dumps({"error": f"Conversion failed: {exc}"})
