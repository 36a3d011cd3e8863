"""``ctx.state``: a plugin's small durable JSON store in ``$HERMES_HOME/plugin-state/<plugin>.json``."""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Any

from hermes_nb import config

__all__ = ["PluginState"]

_lock = threading.Lock()


class PluginState:
    """Key → JSON value, written atomically on every change; one file per plugin."""

    def __init__(self, plugin_id: str) -> None:
        self.plugin_id = plugin_id

    @property
    def path(self) -> Path:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "__", self.plugin_id)
        return config.get_hermes_home() / "plugin-state" / f"{safe}.json"

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        """Through a unique temporary file in the same folder, then renamed: never a partial file."""
        path = self.path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(data, indent=2, sort_keys=True))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, key: str, default: Any = None) -> Any:
        return self._read().get(key, default)

    def set(self, key: str, value: Any) -> None:
        json.dumps(value)  # a TypeError here names the value that cannot be stored
        with _lock:
            data = self._read()
            data[key] = value
            self._write(data)

    def delete(self, key: str) -> None:
        with _lock:
            data = self._read()
            if data.pop(key, None) is not None:
                self._write(data)

    def all(self) -> dict[str, Any]:
        return self._read()
