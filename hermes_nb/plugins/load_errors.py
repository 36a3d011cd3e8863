"""Why a plugin failed to load, as one line naming the file and the fix (never a wrong pip hint)."""

from __future__ import annotations

from pathlib import Path

from hermes_nb.extras import install_command
from hermes_nb.plugins.hermes_internals import missing_hermes_name
from hermes_nb.redaction import redact

__all__ = ["NoRegisterError", "describe_load_error"]


class NoRegisterError(Exception):
    """A plugin module without a top-level ``register(ctx)``."""


def describe_load_error(key: str, where: str | Path, exc: BaseException) -> str:
    """The one-line error of plugin ``key`` (at ``where``) whose import or ``register()`` raised ``exc``."""
    if isinstance(exc, NoRegisterError):
        return str(exc)
    fix = f"fix the plugin or run `hermes-nb plugins disable {key}`"
    hermes_name = missing_hermes_name(exc)
    if hermes_name:
        return redact(
            f"plugin {key} ({where}): this plugin uses a Hermes internal hermes_nb does not provide: "
            f"{hermes_name}; {fix}"
        )
    if isinstance(exc, ImportError):
        top = (exc.name or "").split(".")[0] if isinstance(exc, ModuleNotFoundError) else ""
        missing = f" ({install_command(top)})" if top else ""
        fix = f"install what it imports{missing}, {fix}"
    return redact(f"plugin {key} ({where}) failed: {type(exc).__name__}: {exc}; {fix}")
