"""What the Hermes names hermes_nb serves do: file safety, gateway answers, xAI, fal, models, auth."""

from __future__ import annotations

import base64
import importlib
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hermes_nb import config
from hermes_nb.compat import ALIASES
from hermes_nb.net import http_client
from hermes_nb.plugins import loader


@pytest.fixture(autouse=True)
def served(hermetic: Path) -> Iterator[None]:
    loader.get_plugin_manager().discover()  # installs the finder, as the loader does
    yield


def test_one_compat_module_per_hermes_name() -> None:
    for hermes_name, module_name in ALIASES.items():
        assert module_name == "hermes_nb.compat." + hermes_name.replace(".", "_")
        ours = importlib.import_module(module_name)
        assert hermes_name == ours.HERMES_NAME and ours.__doc__
        served = importlib.import_module(hermes_name)
        assert set(ours.__all__) <= set(vars(served)), hermes_name


def test_names_the_issue_lists_are_served() -> None:
    wanted = {
        "tools.web_tools": "_exa_client _parallel_client _async_parallel_client _firecrawl_client "
        "_firecrawl_client_config Firecrawl prefers_gateway resolve_managed_tool_gateway "
        "managed_nous_tools_enabled build_vendor_gateway_url nous_tool_gateway_unavailable_message "
        "_read_nous_access_token _peek_nous_access_token",
        "tools.website_policy": "check_website_access",
        "tools.xai_http": "has_xai_credentials hermes_xai_user_agent resolve_xai_http_credentials "
        "build_xai_storage_options maybe_mark_xai_storage_notice_seen read_xai_imagine_storage_config "
        "xai_storage_notice_text",
        "agent.file_safety": "raise_if_read_blocked get_read_block_error",
        "tools.image_generation_tool": "check_fal_api_key FAL_MODELS DEFAULT_MODEL _resolve_fal_model "
        "image_generate_tool",
        "hermes_cli.runtime_provider": "resolve_runtime_provider",
        "hermes_cli.models": "deepinfra_base_url _fetch_deepinfra_models_by_tag",
        "agent.auxiliary_client": "_read_codex_access_token _codex_cloudflare_headers",
        "agent.image_routing": "_sniff_mime_from_bytes",
        "hermes_cli.config": "save_config save_env_value set_config_value load_config get_env_value",
        "tools.tool_backend_helpers": "prefers_gateway",
        "tools.managed_tool_gateway": "is_managed_tool_gateway_ready resolve_managed_tool_gateway",
    }
    for module, names in wanted.items():
        served = importlib.import_module(module)
        assert [n for n in names.split() if not hasattr(served, n)] == [], module


def test_client_slots_start_empty_and_are_per_served_module() -> None:
    import tools.web_tools as wt

    assert wt._exa_client is None and wt._firecrawl_client_config is None
    wt._exa_client = object()
    from hermes_nb import _state

    _state.reset_all()  # drops the served module: the next import starts empty again
    loader.get_plugin_manager().discover()
    import tools.web_tools as fresh

    assert fresh._exa_client is None


def test_the_managed_gateway_is_honestly_unavailable() -> None:
    import tools.managed_tool_gateway as gateway
    import tools.web_tools as wt

    assert wt.resolve_managed_tool_gateway("firecrawl", token_reader=wt._read_nous_access_token) is None
    assert not wt.prefers_gateway("web") and not wt.managed_nous_tools_enabled()
    assert not gateway.is_managed_tool_gateway_ready("krea") and wt.build_vendor_gateway_url("x") == ""
    assert "not available in hermes_nb" in wt.nous_tool_gateway_unavailable_message("managed Firecrawl")


@pytest.mark.parametrize(
    "name",
    [".env", "prod.env", ".env.local", "id_rsa", "server.pem", "keys.p12", "credentials.json", ".netrc"],
)
def test_file_safety_refuses_secret_files(tmp_path: Path, name: str) -> None:
    from agent.file_safety import get_read_block_error, raise_if_read_blocked

    path = tmp_path / name
    path.write_text("SECRET=1")
    assert get_read_block_error(str(path))
    with pytest.raises(PermissionError, match="Refusing to read"):
        raise_if_read_blocked(str(path))


def test_file_safety_refuses_key_folders_and_hermes_home(tmp_path: Path, hermetic: Path) -> None:
    from agent.file_safety import get_read_block_error

    ssh = tmp_path / ".ssh"  # HOME is tmp_path in the tests
    ssh.mkdir()
    (ssh / "config").write_text("Host *")
    (hermetic / "auth.json").write_text("{}")
    (hermetic / "notes.txt").write_text("x")
    assert "credentials" in (get_read_block_error("~/.ssh/config") or "")
    assert get_read_block_error(str(hermetic / "notes.txt"))
    image = hermetic / "cache" / "images" / "a.png"
    image.parent.mkdir(parents=True)
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    picture = tmp_path / "photo.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n")
    assert get_read_block_error(str(image)) is None and get_read_block_error(str(picture)) is None


def test_xai_credentials_come_from_the_session_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.xai_http import (
        has_xai_credentials,
        read_xai_imagine_storage_config,
        resolve_xai_http_credentials,
    )

    assert not has_xai_credentials() and resolve_xai_http_credentials()["api_key"] == ""
    config.set_key("XAI_API_KEY", "xai-secret")
    monkeypatch.setenv("XAI_BASE_URL", "http://127.0.0.1:9/xai/v1/")
    creds = resolve_xai_http_credentials(force_refresh=True)
    assert has_xai_credentials() and creds == {
        "provider": "xai", "api_key": "xai-secret", "base_url": "http://127.0.0.1:9/xai/v1"
    }
    assert read_xai_imagine_storage_config("image_gen")["enabled"] is False


def test_image_generation_tool_is_the_bundled_fal(monkeypatch: pytest.MonkeyPatch) -> None:
    import tools.image_generation_tool as it

    assert it.DEFAULT_MODEL in it.FAL_MODELS and not it.check_fal_api_key()
    config.set("image_gen.model", "fal-ai/flux/schnell")
    assert it._resolve_fal_model()[0] == "fal-ai/flux/schnell"
    config.set("image_gen.model", "not-a-fal-model")
    assert it._resolve_fal_model()[0] == it.DEFAULT_MODEL
    result = json.loads(it.image_generate_tool(prompt="a cat", aspect_ratio="square"))
    assert result["success"] is False and "FAL_KEY" in result["error"]  # no key: a clear answer, no call


def test_runtime_provider_and_deepinfra_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_cli.models import deepinfra_base_url
    from hermes_cli.runtime_provider import resolve_runtime_provider

    assert resolve_runtime_provider(requested="openrouter")["base_url"] == "https://openrouter.ai/api/v1"
    config.set_key("OPENROUTER_API_KEY", "or-key")
    monkeypatch.setenv("OPENROUTER_BASE_URL", "http://127.0.0.1:9/or/")
    runtime = resolve_runtime_provider(requested="openrouter")
    assert (runtime["api_key"], runtime["base_url"]) == ("or-key", "http://127.0.0.1:9/or")
    assert resolve_runtime_provider(requested="nous")["api_key"] == ""
    with pytest.raises(ValueError, match="not available in hermes_nb"):
        resolve_runtime_provider(requested="martian")
    assert deepinfra_base_url({}) == "https://api.deepinfra.com/v1/openai"
    monkeypatch.setenv("DEEPINFRA_BASE_URL", "http://127.0.0.1:9/di")
    assert deepinfra_base_url(None) == "http://127.0.0.1:9/di"
    assert deepinfra_base_url({"base_url": "http://cfg/v1/"}) == "http://cfg/v1"


def test_deepinfra_catalog_by_tag() -> None:
    from hermes_cli.models import _fetch_deepinfra_models_by_tag

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.params["filter"] == "true"
        return httpx.Response(200, json={"data": [
            {"id": "flux", "metadata": {"tags": ["image-gen"]}},
            {"id": "llama", "metadata": {"tags": ["chat"]}},
        ]})

    http_client.set_transport(httpx.MockTransport(handler))
    assert [m["id"] for m in _fetch_deepinfra_models_by_tag("image-gen") or []] == ["flux"]
    http_client.set_transport(httpx.MockTransport(lambda request: httpx.Response(503)))
    assert _fetch_deepinfra_models_by_tag("image-gen") is None


def test_codex_token_from_auth_json_and_headers(hermetic: Path) -> None:
    from agent.auxiliary_client import _codex_cloudflare_headers, _read_codex_access_token

    assert _read_codex_access_token() is None
    claims = base64.urlsafe_b64encode(
        json.dumps({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-1"}}).encode()
    ).decode().rstrip("=")
    token = f"h.{claims}.s"
    (hermetic / "auth.json").write_text(
        json.dumps({"providers": {"openai-codex": {"tokens": {"access_token": token}}}})
    )
    assert _read_codex_access_token() == token
    assert _codex_cloudflare_headers(token)["chatgpt-account-id"] == "acct-1"


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xff\xd8\xff\xe0", "image/jpeg"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"GIF89a", "image/gif"),
        (b"<svg xmlns='x'>", "image/svg+xml"),
        (b"hello", None),
    ],
)
def test_mime_sniffing(head: bytes, mime: str | None) -> None:
    from agent.image_routing import _sniff_mime_from_bytes

    assert _sniff_mime_from_bytes(head + b"\x00" * 16) == mime


def test_cli_config_writers(hermetic: Path) -> None:
    import os

    from hermes_cli.config import save_config, save_env_value, set_config_value

    set_config_value("web.backend", "tavily")
    save_config({"image_gen": {"provider": "fal"}})
    assert config.get("web.backend") == "tavily" and config.get("image_gen.provider") == "fal"
    save_env_value("MY_TOOL_API_KEY", "v1")
    save_env_value("MY_TOOL_API_KEY", "v2")
    env_file = hermetic / ".env"
    assert env_file.read_text() == "MY_TOOL_API_KEY=v2\n" and (env_file.stat().st_mode & 0o777) == 0o600
    assert os.environ["MY_TOOL_API_KEY"] == "v2"
