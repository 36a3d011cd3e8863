"""``hn.cache``: the cache you can see — stats, entries, clear, record and replay, drift, costs.

``stats()``, ``entries(kind, since)``, ``clear(kind)``; ``export(path, since)`` / ``with
record(path):`` write a cassette to commit, ``load(path)`` puts one into the store, and
``HERMES_NB_REPLAY=path`` (or ``cache.replay_file``) replays one with no network and no keys;
``drift(path)`` re-runs a cassette live and reports what changed; ``costs()`` is the image ledger.
"""

from hermes_nb.cache.drift import DriftReport, DriftRow, drift
from hermes_nb.cache.inventory import clear, costs, entries, stats
from hermes_nb.cache.recording import export, load, record

__all__ = [
    "stats",
    "entries",
    "clear",
    "export",
    "record",
    "load",
    "drift",
    "costs",
    "DriftReport",
    "DriftRow",
]
