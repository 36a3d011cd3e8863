"""The configuration keys plugins declare in their manifests (``settings:``), gathered from discovery.

``hermes_nb.config`` reaches them through ``services.plugin_settings`` (for defaults and ``config
show``); ``config_schema`` validates against them. Discovery reads manifests only, so asking for the
settings never imports plugin code. The first plugin (bundled before user) that declares a key owns it.
"""

from __future__ import annotations

import threading

from hermes_nb.config_keys import Setting
from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins.loader import get_plugin_manager

__all__ = ["plugin_settings"]

_inside = threading.local()


def plugin_settings() -> dict[str, Setting]:
    """Every setting the discovered plugins declare, by key (discovers plugins on first use)."""
    if getattr(_inside, "active", False):
        return {}  # asked while discovery runs (a config read during the scan): nothing is known yet
    _inside.active = True
    try:
        records = get_plugin_manager().discover()
    except InvalidInputError:
        return {}  # config.yaml's own plugins.* keys are broken: `config show` names them; no plugin is known
    finally:
        _inside.active = False
    found: dict[str, Setting] = {}
    for record in records:
        for setting in record.manifest.settings:
            found.setdefault(setting.key, setting)
    return found
