"""Optional dependencies installed on demand from an allow-list (Hermes ``tools/lazy_deps.py``).

``ensure(feature)`` never installs silently: without a terminal to ask on (Jupyter, CI, scripts)
or with ``prompt=False`` it raises ``FeatureUnavailable`` naming the exact ``pip install``
command to run by hand. ``security.allow_lazy_installs: false`` or
``HERMES_DISABLE_LAZY_INSTALLS=1`` turn installing off entirely; an unreadable config also does
(fail closed).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterable

from hermes_nb import config
from hermes_nb.errors import HermesError, ProviderNotConfiguredError
from hermes_nb.redaction import redact

__all__ = [
    "LAZY_DEPS",
    "FeatureUnavailable",
    "ensure",
    "is_available",
    "feature_missing",
    "feature_install_command",
]

log = logging.getLogger(__name__)

#: feature → pip requirement specs. Only these can ever be installed by ``ensure``.
LAZY_DEPS: dict[str, tuple[str, ...]] = {
    "search.exa": ("exa-py==2.10.2",),
    "search.firecrawl": ("firecrawl-py==4.17.0",),
    "search.parallel": ("parallel-web==0.4.2",),
    "image.fal": ("fal-client==0.13.1",),
    "search.ddgs": ("ddgs>=9",),
    "image.diffusers": ("diffusers", "transformers", "torch==2.13.0"),
}

_MAX_SPEC = 200
_VERSION = r"(?:==|!=|>=|<=|~=|>|<)\s*[A-Za-z0-9.*+!_-]+"
_SAFE_SPEC = re.compile(
    rf"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*\])?"
    rf"(?:\s*{_VERSION}(?:\s*,\s*{_VERSION})*)?$"
)
_NAME = re.compile(r"^[A-Za-z0-9._-]+")
_CI_VARS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD")
_INSTALL_TIMEOUT_S = 900


class FeatureUnavailable(ProviderNotConfiguredError):  # noqa: N818 - Hermes name, plugins import it
    """An optional feature's packages are missing and were not installed (code PROVIDER_NOT_CONFIGURED)."""

    def __init__(self, feature: str, missing: Iterable[str] = (), reason: str = "") -> None:
        self.feature = feature
        self.missing = tuple(missing)
        self.reason = reason
        self.command = shlex.join(["pip", "install", *self.missing]) if self.missing else ""
        message = f"{feature} is unavailable"
        if reason:
            message += f": {reason}"
        if self.command:
            message += f". Install it by hand with `{self.command}` (in a notebook: `%{self.command}`)"
        super().__init__(message)


def _spec_is_safe(spec: object) -> bool:
    """A plain requirement (name, extras, version pins): no URL, path, ``@``, or shell metacharacter."""
    return isinstance(spec, str) and 0 < len(spec) <= _MAX_SPEC and bool(_SAFE_SPEC.match(spec))


def _satisfied(spec: str) -> bool:
    name = _NAME.match(spec)
    if name is None:
        return False
    try:
        installed = importlib.metadata.version(name.group(0))
    except importlib.metadata.PackageNotFoundError:
        return False
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:  # without packaging, presence is the best check available
        return True
    try:
        return Requirement(spec).specifier.contains(installed, prereleases=True)
    except InvalidRequirement:
        return False


def _specs(feature: str) -> tuple[str, ...]:
    if feature not in LAZY_DEPS:
        known = ", ".join(sorted(LAZY_DEPS))
        raise FeatureUnavailable(feature, reason=f"unknown feature (known: {known})")
    return LAZY_DEPS[feature]


def feature_missing(feature: str) -> tuple[str, ...]:
    """The specs of ``feature`` that are not installed (or installed at a wrong version)."""
    return tuple(spec for spec in _specs(feature) if not _satisfied(spec))


def is_available(feature: str) -> bool:
    """True when every package of ``feature`` is installed; False for unknown features."""
    try:
        return not feature_missing(feature)
    except FeatureUnavailable:
        return False


def feature_install_command(feature: str) -> str:
    """The shell command that installs what ``feature`` lacks ("" when nothing is missing)."""
    missing = feature_missing(feature)
    return shlex.join(["pip", "install", *missing]) if missing else ""


def _allow_lazy_installs() -> tuple[bool, str]:
    if os.environ.get("HERMES_DISABLE_LAZY_INSTALLS", "").strip().lower() in ("1", "true", "yes"):
        return False, "lazy installs disabled (HERMES_DISABLE_LAZY_INSTALLS=1)"
    try:
        allowed = config.get("security.allow_lazy_installs", True)
    except HermesError as exc:
        return False, f"lazy installs disabled: config unreadable ({exc.message})"
    if allowed is False or str(allowed).strip().lower() in ("false", "no", "0", "off"):
        return False, "lazy installs disabled (security.allow_lazy_installs=false)"
    return True, ""


def _interactive() -> bool:
    if any(os.environ.get(name, "").strip().lower() not in ("", "0", "false") for name in _CI_VARS):
        return False
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed streams (kernels, pytest capture)
        return False


def _ask(feature: str, missing: tuple[str, ...]) -> bool:
    answer = input(f"{feature} needs {' '.join(missing)}. Install now with pip? [Y/n] ")
    return answer.strip().lower() in ("", "y", "yes")


def _pip_install(feature: str, missing: tuple[str, ...]) -> None:
    command = [sys.executable, "-m", "pip", "install", *missing]
    log.info("installing %s for %s", " ".join(missing), feature)
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=_INSTALL_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FeatureUnavailable(feature, missing, f"pip could not run ({type(exc).__name__})") from exc
    if done.returncode != 0:
        tail = redact((done.stderr or done.stdout or "").strip()[-500:])
        raise FeatureUnavailable(feature, missing, f"pip install failed (exit {done.returncode}): {tail}")


def ensure(feature: str, *, prompt: bool = True) -> None:
    """Make ``feature``'s packages importable, or raise ``FeatureUnavailable`` saying how to install them.

    Installs only allow-listed, safe specs, only when allowed by config, and only after a ``[Y/n]``
    answer on a terminal; everywhere else it raises with the ``pip install`` command instead.
    """
    missing = feature_missing(feature)
    if not missing:
        return
    unsafe = [spec for spec in missing if not _spec_is_safe(spec)]
    if unsafe:
        raise FeatureUnavailable(feature, reason=f"refusing unsafe requirement spec(s): {unsafe!r}")
    allowed, why = _allow_lazy_installs()
    if not allowed:
        raise FeatureUnavailable(feature, missing, why)
    if not prompt or not _interactive():
        raise FeatureUnavailable(feature, missing, "not installed (hermes_nb never installs without asking)")
    if not _ask(feature, missing):
        raise FeatureUnavailable(feature, missing, "installation declined")
    _pip_install(feature, missing)
    importlib.invalidate_caches()
    still = feature_missing(feature)
    if still:
        raise FeatureUnavailable(feature, still, "still missing after pip install")
