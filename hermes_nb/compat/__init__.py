"""Hermes import names (``agent.web_search_provider``, ``tools.web_tools``, …) served to Hermes plugins.

One module here per Hermes module, named after it (``tools.web_tools`` → ``compat/tools_web_tools.py``);
``_finder`` serves them through a ``sys.meta_path`` finder only where no real Hermes is installed.
"""

from hermes_nb.compat._finder import ALIASES, install, is_installed, is_served, uninstall

__all__ = ["ALIASES", "install", "uninstall", "is_installed", "is_served"]
