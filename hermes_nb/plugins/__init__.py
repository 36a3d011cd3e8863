"""The plugin system: discovery, manifests, the loader, ``ctx``, provider contracts and registries, hooks.

Plugins register into the registries here; the SDK facades above (``web``, ``images``, ``tools``)
read from them. Provider authors import from ``hermes_nb.provider_api``, not from this package.

The package is also ``hn.plugins``, and calling it lists the plugins: ``hn.plugins()`` (beside
``hn.providers()``). Only the call is added — ``import hermes_nb.plugins.loader`` and every
attribute work as for any package.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from hermes_nb._services import services


class _CallablePackage(types.ModuleType):
    """This package, callable: ``hn.plugins(check=False)`` is ``hermes_nb.catalog.plugins``."""

    def __call__(self, *, check: bool = False) -> Any:
        """Every discovered plugin as a table; ``check=True`` imports the enabled ones first."""
        return services.list_plugins(check=check)


sys.modules[__name__].__class__ = _CallablePackage
