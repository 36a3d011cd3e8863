"""A brand-new keyed web search provider in one folder — manifest with a setting, provider, fake — works.

The plugin lives in a temporary ``$HERMES_HOME/plugins/web/acme/`` in the provider kit's shape — no
``__init__.py``, the class named by ``provider_class``, ``KeyedHttpProvider`` doing the key check,
base URL and client — and nothing outside that folder and this test names it (it is the
"add a web provider" walk-through of docs/ARCHITECTURE.md, run). The emulator finds its
``fake.py``, ``use_emulator`` points ``web.acme.base_url`` at it and sets ``ACME_API_KEY`` (from
``requires_env``), and ``web.acme.region`` is a known setting with its default, its choices and its
validation.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import hermes_nb as hn
from hermes_nb import config
from hermes_nb.errors import InvalidInputError, ProviderAuthError, ProviderNotConfiguredError
from hermes_nb.testing import PROVIDER_PREFIXES, Emulator, use_emulator

MANIFEST = """\
name: web-acme
version: 0.1.0
description: "Acme search (X-Acme-Key)"
kind: backend
provider_class: provider:AcmeProvider
provides_web_providers:
  - acme
requires_env:
  - ACME_API_KEY
settings:
  - key: web.acme.region
    type: string
    default: eu
    choices: [eu, us]
    doc: "Region the Acme API answers from."
"""

PROVIDER = """\
from hermes_nb.provider_api import KeyedHttpProvider, config, search_envelope, web_hits


class AcmeProvider(KeyedHttpProvider):
    name = "acme"
    display_name = "Acme Search"
    vendor = "Acme"
    tier = "commercial"
    key_env = "ACME_API_KEY"
    key_header = "X-Acme-Key"
    docs_url = "https://acme.invalid/api"
    default_base_url = "https://api.acme.invalid"

    def search(self, query, limit=5):
        self.require_key()
        count = self.clamp(limit)
        region = config.get("web.acme.region")
        body = self.post_json("/v1/search", {"query": query, "count": count, "region": region})
        hits = web_hits(body.get("items"), count, title="name", url="link", description="text")
        return search_envelope(hits)
"""

#: The same plugin as Hermes's guide writes it: ``register(ctx)`` in ``__init__.py``, no manifest key.
HERMES_STYLE_INIT = """\
from .provider import AcmeProvider


def register(ctx):
    ctx.register_web_search_provider(AcmeProvider())
"""

FAKE = """\
from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits


class AcmeApi:
    name = "acme"

    def handle(self, call: Call) -> Response:
        if call.subpath != "/v1/search" or call.request.method != "POST":
            return Response.json({"error": "not found"}, 404)
        key = call.header("x-acme-key")
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            return Response.json({"error": "invalid key"}, 401)
        body = call.json_body
        region = body.get("region")
        if region not in ("eu", "us"):
            return Response.json({"error": f"unknown region {region!r}"}, 400)
        found = [] if call.empty else hits(call, str(body.get("query") or ""), int(body.get("count") or 5))
        items = [{"name": h["title"], "link": h["url"], "text": f"[{region}] {h['snippet']}"} for h in found]
        return Response.json({"items": items})

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return Response.json({"error": f"status {status}"}, status)


def register(routes: FakeRoutes) -> None:
    routes.add(AcmeApi())
"""


@pytest.fixture
def acme(hermetic: Path) -> Path:
    folder = hermetic / "plugins" / "web" / "acme"
    folder.mkdir(parents=True)
    files = {"plugin.yaml": MANIFEST, "provider.py": PROVIDER, "fake.py": FAKE}
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def test_a_new_provider_folder_brings_its_fake_and_its_setting(acme: Path) -> None:
    assert "acme" not in PROVIDER_PREFIXES  # a user plugin's fake is served only once it is enabled
    config.set("plugins.enabled", ["web/acme"])
    assert PROVIDER_PREFIXES["acme"] == "/acme"
    assert config.get("web.acme.region") == "eu"  # the manifest's default
    with Emulator(seed=0) as emu, use_emulator(emu):
        assert config.get("web.acme.base_url") == emu.base_url("acme")
        assert config.resolve_key("ACME_API_KEY") == "emu-acme-key"  # named by requires_env
        result = hn.search("notebook testing", limit=3, backend="acme", no_cache=True)
        assert result.provider == "acme" and len(result) == 3
        assert all(hit.description.startswith("[eu] ") for hit in result)
        (sent,) = emu.requests_for("acme")
        assert sent.headers["x-acme-key"] == "emu-acme-key" and sent.json["region"] == "eu"

        config.set("web.acme.region", "us")
        result = hn.search("notebook testing", limit=2, backend="acme", no_cache=True)
        assert [hit.description[:5] for hit in result] == ["[us] ", "[us] "]
        with pytest.raises(InvalidInputError, match="web.acme.region must be one of eu, us"):
            config.set("web.acme.region", "mars")
    assert config.resolve_key("ACME_API_KEY") is None
    with pytest.raises(ProviderNotConfiguredError):
        hn.search("notebook testing", backend="acme", no_cache=True)


def test_use_emulator_can_choose_the_new_provider_alone(acme: Path) -> None:
    config.set("plugins.enabled", ["web-acme"])  # by the manifest's name
    with Emulator(seed=0) as emu, use_emulator(emu, providers=["acme"]):
        assert config.get("web.acme.base_url") == emu.base_url("acme")
        assert config.get("web.brave.base_url") is None
        emu.fail("acme", "auth")
        with pytest.raises(ProviderAuthError):
            hn.search("anything", backend="acme", no_cache=True)


def test_a_broken_user_fake_is_skipped_with_a_warning(acme: Path, caplog: pytest.LogCaptureFixture) -> None:
    (acme / "fake.py").write_text("raise RuntimeError('half-written fake')\n", encoding="utf-8")
    config.set("plugins.enabled", ["web/acme"])
    with Emulator(seed=0) as emu:
        assert emu.base_url("brave").endswith("/brave")  # the bundled fakes still serve
        with pytest.raises(InvalidInputError, match="does not speak 'acme'"):
            emu.base_url("acme")
    assert "the emulator skips" in caplog.text and "half-written fake" in caplog.text


def test_the_same_folder_written_hermes_style_works_too(acme: Path) -> None:
    manifest = acme / "plugin.yaml"
    manifest.write_text(manifest.read_text().replace("provider_class: provider:AcmeProvider\n", ""))
    (acme / "__init__.py").write_text(HERMES_STYLE_INIT, encoding="utf-8")
    config.set("plugins.enabled", ["web/acme"])
    with Emulator(seed=0) as emu, use_emulator(emu):
        result = hn.search("notebook testing", limit=2, backend="acme", no_cache=True)
        assert result.provider == "acme" and len(result) == 2
