"""The plugin system: discovery, manifests, the loader, ``ctx``, provider contracts and registries, hooks.

Plugins register into the registries here; the SDK facades above (``web``, ``images``, ``tools``)
read from them. Provider authors import from ``hermes_nb.provider_api``, not from this package.
"""
