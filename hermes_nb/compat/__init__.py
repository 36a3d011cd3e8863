"""Hermes import names (``agent.web_search_provider``, ``tools.registry``, …) served to Hermes plugins."""
from hermes_nb.compat._finder import ALIASES, install, is_installed, uninstall

__all__ = ["ALIASES", "install", "uninstall", "is_installed"]
