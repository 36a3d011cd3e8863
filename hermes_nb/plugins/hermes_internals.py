"""Hermes's own package names: imports a Hermes plugin expects its host to serve, not to pip-install."""

from __future__ import annotations

__all__ = ["HERMES_PACKAGES", "is_hermes_internal", "missing_hermes_name"]

#: top-level packages of Hermes Agent itself (``agent.…``, ``tools.…``, ``hermes_cli.…``, …)
HERMES_PACKAGES = ("agent", "tools", "hermes_cli", "hermes_constants", "plugins", "model_tools", "toolsets")


def is_hermes_internal(module: str) -> bool:
    """True for ``agent``, ``tools.web_tools``, ``hermes_cli.auth`` and other Hermes module names."""
    return bool(module) and module.split(".")[0] in HERMES_PACKAGES


def missing_hermes_name(exc: BaseException) -> str | None:
    """The Hermes name an ``ImportError`` is about (module, or ``module.attribute``), else ``None``."""
    if not isinstance(exc, ImportError):
        return None
    module = exc.name or ""
    if not is_hermes_internal(module):
        return None
    if isinstance(exc, ModuleNotFoundError):
        return module
    # "cannot import name 'X' from 'tools.web_tools'": name the attribute too
    message = str(exc)
    if message.startswith("cannot import name '"):
        attribute = message.split("'")[1]
        return f"{module}.{attribute}"
    return module
