"""Testing kit: a local provider emulator (real HTTP on 127.0.0.1) and helpers to point hermes_nb at it.

from hermes_nb.testing import Emulator, use_emulator
with Emulator(seed=0) as emu, use_emulator(emu):
    ...                         # providers now talk to emu; emu.requests logs what they sent
    emu.fail("brave", "429", retry_after=1)
    emu.page_url("/site/articles/hello-world.html")

The emulator speaks each vendor API that a plugin's ``fake.py`` teaches it (``register(routes)``;
``hermes_nb.testing.fakes`` has the building blocks): the bundled plugins' and enabled user plugins'.
"""

from __future__ import annotations

from hermes_nb.testing._config import KEY_NAMES, serve, use_emulator
from hermes_nb.testing._registry import FakeRoutes, fake_module
from hermes_nb.testing._server import FAULT_KINDS, PROVIDER_PREFIXES, Emulator, Fault
from hermes_nb.testing._wire import RecordedRequest

__all__ = [
    "Emulator",
    "use_emulator",
    "serve",
    "RecordedRequest",
    "Fault",
    "FAULT_KINDS",
    "PROVIDER_PREFIXES",
    "KEY_NAMES",
    "FakeRoutes",
    "fake_module",
]
