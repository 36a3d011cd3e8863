"""The doctor's checks, run by doing: convert a sample page, search and generate an image against an
in-process emulator, write to the store, validate config.yaml. Shared by ``%hermes doctor`` and
``hermes-nb doctor``; every failure carries its fix.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hermes_nb import config, extras
from hermes_nb.errors import HermesError, InvalidInputError
from hermes_nb.images import imagine
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.store.database import close_store, get_store
from hermes_nb.web import content, search

__all__ = ["Check", "SAMPLE_PAGE", "optional_features", "run_checks"]

#: A built-in page: converting it proves the HTML → Markdown stack is installed and works.
SAMPLE_PAGE = """<!doctype html><html lang="en"><head><title>Doctor sample</title></head><body><article>
<h1>Doctor sample</h1>
<p>The hermes_nb doctor converts this paragraph to Markdown to prove extraction works.</p>
<p>A second paragraph gives the main-text extractor enough to keep as the article body.</p>
</article></body></html>"""


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``fix`` says what to do when ``ok`` is false; a skipped check is not ok."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    skipped: bool = False

    @property
    def status(self) -> str:
        """The outcome in words: ``ok``, ``FAIL`` or ``skipped`` (symbols alone need an emoji font)."""
        return "skipped" if self.skipped else "ok" if self.ok else "FAIL"


class _Skip(Exception):  # noqa: N818 - a check's outcome, not an error
    """A check that could not run here (its provider is not installed): neither passed nor failed."""


def _convert() -> str:
    doc = content.convert(SAMPLE_PAGE, "text/html", url="about:doctor-sample")
    if "converts this paragraph to Markdown" not in doc.content or "<p>" in doc.content:
        raise RuntimeError(f"the sample page came back as {doc.content[:80]!r}, not its Markdown text")
    return f"sample page → {len(doc.content)} characters of Markdown"


def _config() -> str:
    from hermes_nb.plugins.config_schema import config_problems  # lazy: loads the provider registries

    problems = config_problems()
    if problems:
        raise InvalidInputError("; ".join(problems))
    return f"{config.get_hermes_home() / 'config.yaml'} is valid (or absent)"


def _store() -> str:
    store = get_store()
    store.check_writable()
    return f"{store.path} is writable"


@contextmanager
def _emulated(providers: list[str]) -> Iterator[None]:
    """An in-process emulator for ``providers`` and a throw-away ``HERMES_HOME`` (no cache, no files kept)."""
    from hermes_nb.testing import PROVIDER_PREFIXES, Emulator, use_emulator  # lazy: only the doctor

    previous = os.environ.get("HERMES_HOME")
    with tempfile.TemporaryDirectory(prefix="hermes-nb-doctor-") as home:
        os.environ["HERMES_HOME"] = home  # first: the emulator finds its fakes through this home's config
        try:
            missing = [name for name in providers if name not in PROVIDER_PREFIXES]
            if missing:  # the fakes sit beside the bundled plugins: none there, nothing to check against
                raise _Skip(f"the bundled {', '.join(missing)} provider and its fake are not installed")
            with Emulator(seed=0) as emu, use_emulator(emu, providers):
                yield
        finally:
            if previous is None:
                os.environ.pop("HERMES_HOME", None)
            else:
                os.environ["HERMES_HOME"] = previous
            close_store(Path(home))  # its file goes with the temporary home


def _search() -> str:
    with _emulated(["brave"]):  # looked up inside: a broken config.yaml of the real home does not matter
        if web_providers.get("brave") is None:
            raise _Skip("the bundled brave provider is not installed")
        result = search("hermes notebook", limit=3, backend="brave", no_cache=True)
    if not result.hits:
        raise RuntimeError("the emulated search answered with no hits")
    return f"search via the emulator → {len(result.hits)} hits"


def _image() -> str:
    with _emulated(["openai"]):  # looked up inside: a broken config.yaml of the real home does not matter
        if image_providers.get("openai") is None:
            raise _Skip("the bundled openai provider is not installed")
        result = imagine("a doctor's check", backend="openai", no_cache=True)
        first = result if not isinstance(result, list) else result[0]
        size = getattr(first, "width", 0), getattr(first, "height", 0)
    if not all(size):
        raise RuntimeError("the emulated image generation kept no image")
    return f"image via the emulator → {size[0]}×{size[1]}"


_FIXES = {
    "HTML → Markdown": "pip install --upgrade hermes_nb in the kernel's environment, then restart the kernel",
    "config.yaml": "edit config.yaml or run `hermes-nb config set KEY VALUE` with a valid value",
    "store": "make $HERMES_HOME writable, close processes holding the store, or move a damaged file away",
    "search (emulator)": "reinstall hermes_nb; if it persists, report it with the detail above",
    "image generation (emulator)": "reinstall hermes_nb (pillow is required); report it if it persists",
}
_CHECKS: list[tuple[str, Callable[[], str]]] = [
    ("HTML → Markdown", _convert),
    ("config.yaml", _config),
    ("store", _store),
    ("search (emulator)", _search),
    ("image generation (emulator)", _image),
]


def optional_features() -> list[Check]:
    """Each optional feature (``hermes_nb.extras``): installed, or the ``pip install`` that adds it."""
    return [
        Check(
            f"{feature.extra}: {feature.gives}",
            found,
            "installed" if found else "not installed",
            "" if found else feature.install,
        )
        for feature, found in extras.status()
    ]


def run_checks() -> list[Check]:
    """Run every check; none raises, each failure says why and how to fix it (a skip is not a pass)."""
    out = []
    for name, check in _CHECKS:
        try:
            out.append(Check(name, True, check()))
        except _Skip as skip:
            out.append(Check(name, False, f"skipped: {skip}", skipped=True))
        except Exception as exc:  # reported, not raised: the doctor must finish
            detail = exc.message if isinstance(exc, HermesError) else f"{type(exc).__name__}: {exc}"
            fix = exc.details.get("fix", "") if isinstance(exc, HermesError) else ""
            out.append(Check(name, False, detail, str(fix) or _FIXES[name]))
    return out
