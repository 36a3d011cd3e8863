"""``hermes_cli.config``: reading and writing ``config.yaml`` and ``$HERMES_HOME/.env`` as Hermes does."""

from __future__ import annotations

import os
from typing import Any

from hermes_nb import config
from hermes_nb.config import get_env_value, get_hermes_home, load_config

HERMES_NAME = "hermes_cli.config"
__all__ = [
    "load_config",
    "get_env_value",
    "get_hermes_home",
    "save_config",
    "save_env_value",
    "set_config_value",
]


def save_config(values: dict[str, Any]) -> None:
    """Write each top-level section of ``values`` into ``config.yaml`` (other sections are kept)."""
    if isinstance(values, dict) and values:
        config.save({str(key): value for key, value in values.items()})


def set_config_value(key: str, value: Any) -> None:
    """Write one dotted key (``web.backend``) into ``config.yaml``."""
    config.save({key: value})


def save_env_value(key: str, value: str) -> None:
    """Write ``KEY=value`` into ``$HERMES_HOME/.env`` (owner-only) and use it in this session."""
    home = get_hermes_home()
    home.mkdir(parents=True, exist_ok=True)
    path = home / ".env"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    kept = [line for line in lines if line.partition("=")[0].strip().removeprefix("export ").strip() != key]
    kept.append(f"{key}={value}")
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(kept) + "\n", encoding="utf-8")
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    config.set_key(key, value)
