"""The optional features and the pip extra that installs each: one place names the fix for a missing import.

Every lazy import in hermes_nb goes through ``require(module, feature)``: when the module is
missing it raises ``FeatureNotInstalledError`` (a ``PROVIDER_NOT_CONFIGURED`` error that is also an
``ImportError``) naming the fix: ``pip install 'hermes_nb[<extra>]'`` for an optional feature's
module, ``pip install <module>`` for a base dependency imported late (pandas: it is in the base
install because the quickstart, which ``hermes-nb demo`` runs, makes a DataFrame).
``pyproject.toml`` declares the same extras; ``tests/test_extras.py`` keeps the two in step.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType

from hermes_nb.errors import ProviderNotConfiguredError

__all__ = [
    "Feature",
    "FEATURES",
    "FeatureNotInstalledError",
    "extra_for",
    "install_command",
    "require",
    "status",
]


@dataclass(frozen=True)
class Feature:
    """An optional feature: the extra that installs it, the modules it imports, what it gives."""

    extra: str
    modules: tuple[str, ...]
    gives: str
    #: heavy (local models): not part of ``hermes_nb[all]``
    heavy: bool = False

    @property
    def install(self) -> str:
        """The command that installs this feature."""
        return f"pip install 'hermes_nb[{self.extra}]'"


#: In the order ``hermes-nb doctor`` lists them. ``all`` installs every feature that is not heavy.
FEATURES: tuple[Feature, ...] = (
    Feature("widgets", ("anywidget", "ipywidgets"), "interactive result views (use_widgets)"),
    Feature("progress", ("tqdm",), "progress bars for batches"),
    Feature("dask", ("dask", "distributed"), "batches on a Dask cluster (executor=client.get_executor())"),
    Feature("mcp", ("mcp", "anyio", "httpx2", "uvicorn"), "hermes-nb mcp; MCP servers' tools in hn.tools"),
    Feature("video", ("av",), "poster frames, length and size of generated videos (%video, hn.video)"),
    Feature(
        "diffusers",
        ("diffusers", "torch", "transformers", "accelerate"),
        "local Stable Diffusion / FLUX pipelines",
        heavy=True,
    ),
)

_BY_MODULE = {module: feature for feature in FEATURES for module in feature.modules}


class FeatureNotInstalledError(ProviderNotConfiguredError, ModuleNotFoundError):
    """A module a feature needs is not installed; the message names the ``pip install`` that adds it."""


def extra_for(module: str) -> str | None:
    """The extra that installs ``module`` (``"pandas.io"`` → ``"pandas"``), or None for a required one."""
    feature = _BY_MODULE.get(module.split(".")[0])
    return feature.extra if feature else None


def install_command(module: str) -> str:
    """``pip install 'hermes_nb[<extra>]'`` for ``module``; ``pip install <module>`` when no extra has it."""
    feature = _BY_MODULE.get(module.split(".")[0])
    return feature.install if feature else f"pip install {module.split('.')[0]}"


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` for ``feature`` (``"to_pandas()"``); ``FeatureNotInstalledError`` names the fix."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top, missing = module.split(".")[0], exc.name or ""
        # missing: the module itself, or another module of the same extra (distributed under dask)
        ours = missing.split(".")[0] == top or (extra_for(missing) or "-") == extra_for(top)
        if _installed(top) and not ours:
            raise  # installed but broken inside (numpy missing under pandas): its own error says more
        error = FeatureNotInstalledError(
            f"{feature} needs {top}, which is not installed: {install_command(module)} "
            "(then restart the kernel)",
            details={"missing_module": exc.name or top, "fix": install_command(module)},
        )
        error.name = exc.name or top
        raise error from exc


def _installed(module: str) -> bool:
    """True when ``module`` can be found (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # set to None in sys.modules, or a broken parent package
        return False


def status() -> list[tuple[Feature, bool]]:
    """Each feature and whether all its modules can be imported (found, not imported)."""
    return [(feature, all(_installed(module) for module in feature.modules)) for feature in FEATURES]
