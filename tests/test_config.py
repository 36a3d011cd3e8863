"""Configuration: sources, runtime overrides, secrets resolution order, show() never leaks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_nb import config
from hermes_nb.errors import InvalidInputError


def test_defaults_and_sources(hermetic: Path) -> None:
    item = config.effective("web.extract_char_limit")
    assert item.value == 15000 and item.source == "default"
    (hermetic / "config.yaml").write_text("web:\n  search_backend: brave\n", encoding="utf-8")
    assert config.effective("web.search_backend").source == "config.yaml"
    config.set("web.search_backend", "ddgs")
    expected = config.ConfigValue("web.search_backend", "ddgs", "runtime")
    assert config.effective("web.search_backend") == expected
    config.unset("web.search_backend")
    assert config.get("web.search_backend") == "brave"


def test_pattern_defaults() -> None:
    assert config.get("web.brave.base_url") is None
    assert config.effective("image_gen.openai.model").source == "default"


def test_load_config_merges_overrides(hermetic: Path) -> None:
    (hermetic / "config.yaml").write_text("plugins:\n  enabled: [a]\n", encoding="utf-8")
    config.set("plugins.disabled", ["b"])
    assert config.load_config()["plugins"] == {"enabled": ["a"], "disabled": ["b"]}


def test_file_changes_are_seen(hermetic: Path) -> None:
    path = hermetic / "config.yaml"
    path.write_text("web:\n  backend: a\n", encoding="utf-8")
    assert config.get("web.backend") == "a"
    path.write_text("web:\n  backend: bb\n", encoding="utf-8")
    assert config.get("web.backend") == "bb"


def test_bad_yaml_names_the_file(hermetic: Path) -> None:
    (hermetic / "config.yaml").write_text("web: [unclosed\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as info:
        config.get("web.backend")
    assert "config.yaml" in str(info.value) and "fix" in str(info.value)


def test_save_persists_atomically(hermetic: Path) -> None:
    config.set("web.search_backend", "searxng", persist=True)
    config.reset()
    assert config.get("web.search_backend") == "searxng"
    assert not list(hermetic.glob("*.tmp"))


def test_secret_keys_refused_in_config() -> None:
    with pytest.raises(InvalidInputError) as info:
        config.set("web.brave.api_key", "abc")
    assert "set_key" in str(info.value)


def test_key_resolution_order(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (hermetic / ".env").write_text("export BRAVE_SEARCH_API_KEY='from-dotenv-1'\n# c\n", encoding="utf-8")
    assert config.resolve_key("BRAVE_SEARCH_API_KEY") == "from-dotenv-1"
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "from-env-2")
    assert config.resolve_key("BRAVE_SEARCH_API_KEY") == "from-env-2"
    config.set_key("BRAVE_SEARCH_API_KEY", "from-session-3")
    assert config.resolve_key("BRAVE_SEARCH_API_KEY") == "from-session-3"
    assert config.resolve_key("MISSING_KEY", "BRAVE_SEARCH_API_KEY") == "from-session-3"
    assert config.resolve_key("MISSING_KEY") is None


def test_show_never_contains_secret_values(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (hermetic / "config.yaml").write_text("custom:\n  api_token: tok-very-secret-9\n", encoding="utf-8")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-abcdefghijkl")
    config.resolve_key("TAVILY_API_KEY")
    text = "\n".join(str(row) for row in config.show())
    assert "tok-very-secret-9" not in text and "tvly-abcdefghijkl" not in text
    assert "custom.api_token = '***'" in text
    assert "web.extract_char_limit = 15000  (default)" in text


def test_dead_hermes_keys_warn_once_naming_why(hermetic: Path) -> None:
    (hermetic / "config.yaml").write_text("auxiliary:\n  web_extract:\n    model: x\n", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"auxiliary.web_extract has no effect: .*web.extract_char_limit"):
        config.get("web.backend")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        config.get("web.backend")  # the parsed file is cached: no second warning


def test_one_call_sees_one_version_of_the_file_and_the_next_call_the_edit(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = hermetic / "config.yaml"
    path.write_text("web:\n  timeout: 7\n", encoding="utf-8")
    stats: list[str] = []
    real_stat = os.stat
    monkeypatch.setattr(config.os, "stat", lambda p, *a, **k: stats.append(str(p)) or real_stat(p, *a, **k))
    with config.consistent():
        assert config.get("web.timeout") == 7
        path.write_text("web:\n  timeout: 9\n", encoding="utf-8")  # edited mid-call
        assert config.get("web.timeout") == 7 and config.get("web.deadline") == 60.0
        with config.consistent():  # nested: still the outer call's view
            assert config.get("web.timeout") == 7
    assert stats.count(str(path)) == 1
    os.utime(path, ns=(1, 1))  # a new mtime whatever the file system's resolution
    assert config.get("web.timeout") == 9


# --- a broken config.yaml: flagged, refused at use, repairable --------------------------------------


def test_bad_yaml_names_the_line_without_the_parser_traceback(hermetic: Path) -> None:
    (hermetic / "config.yaml").write_text("web:\n  search_backend: [brave\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as info:
        config.get("web.backend")
    assert "is not valid YAML (line 3: " in info.value.message and "fix that line" in info.value.message
    assert info.value.__cause__ is None and info.value.__suppress_context__


@pytest.mark.parametrize(
    ("text", "key", "said"),
    [
        ("web:\n  search_backend: 42\n", "web.search_backend", "must be a string, got int 42"),
        ("image_gen:\n  budget_usd: lots\n", "image_gen.budget_usd", "must be a number, got str 'lots'"),
        ("web: 5\n", "web.search_backend", "web must be a mapping of keys, got int 5"),
        ("plugins:\n  disabled: 5\n", "plugins.disabled", "must be a list or a string, got int 5"),
    ],
)
def test_a_wrong_type_is_refused_at_use_and_flagged_by_show(
    hermetic: Path, text: str, key: str, said: str
) -> None:
    (hermetic / "config.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInputError) as info:
        config.get(key)  # never silently read as the default
    assert said in info.value.message and f"hermes-nb config set {key} VALUE" in info.value.message
    flagged = key.split(".")[0] if text.startswith("web: 5") else key  # a section: its own row says it
    assert [row.key for row in config.show() if said in row.problem] == [flagged]
    config.set(key, config.KNOWN_KEYS[key][0] if key in config.KNOWN_KEYS else None, persist=True)
    config.reset()
    config.get(key)  # `config set` repaired it
    assert not [row for row in config.show() if row.problem]


def test_a_section_that_is_not_a_mapping_says_what_to_set(hermetic: Path) -> None:
    (hermetic / "config.yaml").write_text("web: 5\n", encoding="utf-8")
    (row,) = [row for row in config.show() if row.problem]
    assert row.key == "web" and row.repair == "web.KEY"


def test_an_unknown_key_is_unknown_whatever_its_last_word(hermetic: Path) -> None:
    for key in ("no.such.key", "web.no_such_key"):
        with pytest.raises(InvalidInputError, match=f"unknown config key '{key}'"):
            config.set(key, 1)
    with pytest.raises(InvalidInputError, match="looks like a secret"):
        config.set("web.brave.api_key", "abc")  # a provider's own key: a secret indeed
