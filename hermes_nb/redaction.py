"""Secret redaction: every secret value the SDK resolves is remembered and masked in text.

Errors, log lines, reprs, caches and rendered output pass through ``redact``. Three layers:
the exact values resolved by ``hermes_nb.config.resolve_key`` (registered with
``register_secret``), patterns for credentials that were never resolved by us
(``Authorization`` headers, ``api_key=`` query parameters, ``sk-…`` style tokens), and the token
patterns plugins add with ``ctx.register_redaction_patterns`` (Hermes's rules: a pattern must compile,
start with at least two literal characters, have no top-level ``|`` and no nested unbounded
repeat; a bad one is skipped with a warning). Plugins can only add masking, never remove it.
Records of the ``hermes_nb``, ``hermes_plugins`` and HTTP-client (``httpx``, ``httpcore``: request
URLs) loggers are redacted as they are created.
"""

from __future__ import annotations

import importlib
import logging
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

from hermes_nb._state import on_reset

try:  # the regex parser: a plugin's pattern is checked before it is used
    _parser: Any = importlib.import_module("re._parser")
    _constants: Any = importlib.import_module("re._constants")
except ImportError:  # Python 3.10
    _parser = importlib.import_module("sre_parse")
    _constants = importlib.import_module("sre_constants")

__all__ = [
    "MASK",
    "redact",
    "mask_known",
    "register_secret",
    "register_patterns",
    "unregister_patterns",
    "is_secret_name",
]

log = logging.getLogger(__name__)

MASK = "***"

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None
_plugin_patterns: dict[str, tuple[str, re.Pattern[str]]] = {}  # pattern -> (its source, compiled)
_plugin_compiled: tuple[re.Pattern[str], ...] = ()  # what redact applies: a snapshot, swapped whole

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)

_GENERIC = [
    # Authorization: Bearer xxx / x-api-key: xxx / X-Subscription-Token: xxx in text
    re.compile(
        r"(?i)\b(authorization|x-api-key|api-key|x-subscription-token|x-key)(\"?\s*[:=]\s*\"?)"
        r"(bearer\s+|key\s+|basic\s+)?([^\s\"',;}&]+)"
    ),
    # query / form / json parameters with secret-looking names
    re.compile(
        r"(?i)([?&\"'\s]?(?:api_key|apikey|access_token|token|secret|password|subscription_token)\"?\s*[=:]\s*\"?)"
        r"([^\s\"'&,;}]{6,})"
    ),
    # vendor-shaped tokens: sk-..., fc-..., tvly-..., xai-..., BSA..., jina_...
    re.compile(r"\b(?:sk|fc|tvly|xai|pk|jina)[-_][A-Za-z0-9_\-]{8,}\b"),
]


def is_secret_name(name: str) -> bool:
    """True for environment/config names that hold secrets (``*_API_KEY``, ``*_TOKEN`` …)."""
    return bool(_SECRET_NAME.search(name))


def register_secret(value: str | None) -> None:
    """Remember a resolved secret value so that ``redact`` masks it everywhere."""
    global _pattern
    if not value or len(value) < 4:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        ordered = sorted(_secrets, key=len, reverse=True)
        _pattern = re.compile("|".join(re.escape(s) for s in ordered))


def _parsed(pattern: str) -> Any:
    try:
        return _parser.parse(pattern)
    except (re.error, RecursionError):
        return None


def _literal_prefix(pattern: str) -> str:
    """The literal characters a pattern starts with (escapes resolved)."""
    out = []
    for op, value in _parsed(pattern) or ():
        if op is not _constants.LITERAL:
            break
        out.append(chr(value))
    return "".join(out)


def _top_level_alternation(pattern: str) -> bool:
    return any(op is _constants.BRANCH for op, _ in _parsed(pattern) or ())


def _nested_unbounded(pattern: str) -> bool:
    """True for ``(a+)+``-like shapes: an unbounded repeat inside an unbounded repeat (ReDoS)."""
    repeats = (_constants.MAX_REPEAT, _constants.MIN_REPEAT)

    def walk(items: Any, inside: bool) -> bool:
        for op, value in items:
            if op in repeats:
                endless = value[1] == _constants.MAXREPEAT
                if (endless and inside) or walk(value[2], inside or endless):
                    return True
            elif (
                op is _constants.SUBPATTERN
                and walk(value[-1], inside)
                or op is _constants.BRANCH
                and any(walk(branch, inside) for branch in value[1])
            ):
                return True
        return False

    return walk(_parsed(pattern) or (), False)


#: (refuse when true, why) in the order they are checked; the reasons are logged with the pattern
_PATTERN_RULES: tuple[tuple[Callable[[str], bool], str], ...] = (
    (_top_level_alternation, "a top-level '|' escapes its literal prefix; group it: 'ab(?:x|y)'"),
    (_nested_unbounded, "nested unbounded repeats such as '(a+)+' can backtrack for ever"),
    (lambda p: len(_literal_prefix(p)) < 2, "it must start with at least 2 literal characters"),
)


def register_patterns(patterns: Iterable[object], source: str = "plugin") -> int:
    """Add credential-token regexes to ``redact``; returns how many were accepted (Hermes's rules)."""
    accepted = 0
    for raw in patterns or ():
        if not isinstance(raw, str) or not raw.strip():
            log.warning("%s: skipping an empty or non-string redaction pattern", source)
            continue
        pattern = raw.strip()
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            log.warning("%s: skipping redaction pattern %r that does not compile (%s)", source, pattern, exc)
            continue
        why = next((reason for refuse, reason in _PATTERN_RULES if refuse(pattern)), None)
        if why:
            log.warning("%s: skipping redaction pattern %r: %s", source, pattern, why)
            continue
        with _lock:
            if pattern in _plugin_patterns:
                continue
            _plugin_patterns[pattern] = (source, compiled)
            _snapshot()
        accepted += 1
    return accepted


def _snapshot() -> None:
    global _plugin_compiled
    _plugin_compiled = tuple(compiled for _source, compiled in _plugin_patterns.values())


def unregister_patterns(source: str) -> None:
    """Remove the patterns ``source`` added (its plugin was unloaded)."""
    with _lock:
        for pattern in [p for p, (owner, _c) in _plugin_patterns.items() if owner == source]:
            del _plugin_patterns[pattern]
        _snapshot()


@on_reset
def _forget_secrets() -> None:
    """Forget remembered values (tests: one test's fake key must not mask another test's text)."""
    global _pattern
    with _lock:
        _secrets.clear()
        _pattern = None
        _plugin_patterns.clear()
        _snapshot()


def mask_known(text: str) -> str:
    """Only the exact secrets and the plugins' patterns (rendered output: no generic guessing)."""
    if not text:
        return text
    pattern = _pattern
    if pattern is not None:
        text = pattern.sub(MASK, text)
    for compiled in _plugin_compiled:
        text = compiled.sub(MASK, text)
    return text


def redact(text: str) -> str:
    """Return ``text`` with every known secret and credential-shaped value replaced by ``***``."""
    if not text:
        return text
    text = mask_known(text)
    text = _GENERIC[0].sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3) or ''}{MASK}", text)
    text = _GENERIC[1].sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _GENERIC[2].sub(MASK, text)
    return text


_LOGGERS = ("hermes_nb", "hermes_plugins", "httpx", "httpcore")  # httpx logs request URLs
_factory = logging.getLogRecordFactory()


def _redacting_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _factory(*args, **kwargs)
    if record.name.startswith(_LOGGERS) and record.name != __name__:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: leave it to logging to report
            return record
        masked = redact(message)
        if masked != message:
            record.msg, record.args = masked, ()
    return record


logging.setLogRecordFactory(_redacting_factory)
