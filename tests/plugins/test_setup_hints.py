"""One answer to "why is this provider unavailable": schema env vars, manifest requires_env, install hint."""

from __future__ import annotations

from typing import Any

from hermes_nb import config
from hermes_nb.plugins.setup_hints import missing_env, setup_hint
from hermes_nb.plugins.web_provider import WebSearchProvider


class Keyed(WebSearchProvider):
    def __init__(self, schema: Any) -> None:
        self._schema = schema

    @property
    def name(self) -> str:
        return "keyed"

    def is_available(self) -> bool:
        return False

    def get_setup_schema(self) -> Any:
        if isinstance(self._schema, Exception):
            raise self._schema
        return self._schema


def test_missing_env_from_schema_only_unset_names() -> None:
    provider = Keyed({"env_vars": [{"key": "A_API_KEY"}, {"key": "B_API_KEY"}, "C_TOKEN"]})
    config.set_key("B_API_KEY", "value-b-123")
    assert missing_env(provider) == ["A_API_KEY", "C_TOKEN"]


def test_hint_names_variables_and_install_step() -> None:
    provider = Keyed({"env_vars": [{"key": "A_API_KEY"}], "install": "pip install a-sdk"})
    hint = setup_hint(provider)
    assert hint.startswith("set A_API_KEY (hn.config.set_key(")
    assert hint.endswith("; pip install a-sdk")


def test_broken_schema_still_gives_an_answer() -> None:
    assert "hermes-nb doctor" in setup_hint(Keyed(RuntimeError("boom")))
    assert "hermes-nb doctor" in setup_hint(Keyed(["not", "a", "dict"]))


def test_manifest_requires_env_of_the_owner_counts() -> None:
    from hermes_nb.plugins import loader

    loader.load_plugins()
    provider = Keyed({})
    assert missing_env(provider, "web/brave") == ["BRAVE_SEARCH_API_KEY"]
    assert missing_env(provider, "no/such-plugin") == []


def test_a_setting_that_is_not_a_secret_is_not_sent_to_set_key() -> None:
    class SelfHosted:
        name = "selfhosted"

        def get_setup_schema(self) -> dict[str, object]:
            return {"env_vars": [{"key": "SELFHOSTED_URL"}], "install": "or hn.config.set(KEY, URL)"}

    hint = setup_hint(SelfHosted())
    assert "SELFHOSTED_URL in the environment" in hint and "set_key" not in hint


def test_the_cli_gets_shell_commands_not_python_or_magics() -> None:
    class Local:
        name = "local-thing"

        def get_setup_schema(self) -> dict[str, object]:
            return {
                "env_vars": [{"key": "LOCAL_THING_API_KEY"}],
                "install": "or hn.config.set('web.local_thing.base_url', 'http://127.0.0.1:9000')",
            }

    hint = setup_hint(Local(), shell=True)
    assert "hermes-nb config set web.local_thing.base_url http://127.0.0.1:9000" in hint
    assert "export it" in hint and "hn.config" not in hint and "%hermes" not in hint
    assert "hn.config.set_key" in setup_hint(Local())
