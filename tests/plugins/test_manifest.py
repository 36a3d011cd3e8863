"""plugin.yaml parsing and validation (hermes_nb.plugins.manifest)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins.manifest import (
    MAX_MANIFEST_BYTES,
    EnvRequirement,
    ManifestError,
    find_manifest,
    read_manifest,
)


def _write(tmp_path: Path, text: str | bytes, name: str = "plugin.yaml") -> Path:
    folder = tmp_path / "my-plugin"
    folder.mkdir(exist_ok=True)
    file = folder / name
    if isinstance(text, bytes):
        file.write_bytes(text)
    else:
        file.write_text(text, encoding="utf-8")
    return file


def test_every_hermes_field_is_read(tmp_path: Path) -> None:
    file = _write(
        tmp_path,
        """
name: weather
version: 2
description: Weather tools
author: Ada
kind: Backend
provides_tools: [forecast]
provides_hooks: [post_tool_call]
provides_web_providers: [weather-web]
provides_image_providers: [weather-img]
requires_env:
  - WEATHER_API_KEY
  - name: OTHER_KEY
    description: "Key for the Other service"
    url: "https://other.example/keys"
    secret: false
label: ignored but kept
""",
    )
    m = read_manifest(file, source="bundled", key="weather")
    assert (m.name, m.version, m.description, m.author, m.kind) == (
        "weather",
        "2",
        "Weather tools",
        "Ada",
        "backend",
    )
    assert m.provides_tools == ["forecast"] and m.provides_hooks == ["post_tool_call"]
    assert m.provides_web_providers == ["weather-web"] and m.provides_image_providers == ["weather-img"]
    assert m.requires_env == [
        EnvRequirement("WEATHER_API_KEY"),
        EnvRequirement("OTHER_KEY", "Key for the Other service", "https://other.example/keys", False),
    ]
    assert m.env_names == ["WEATHER_API_KEY", "OTHER_KEY"]
    assert (m.source, m.key, m.path) == ("bundled", "weather", file.parent)
    assert m.extra == {"label": "ignored but kept"}


def test_defaults_and_plugin_yml(tmp_path: Path) -> None:
    file = _write(tmp_path, "", name="plugin.yml")
    assert find_manifest(file.parent) == str(file)
    m = read_manifest(file)
    assert (m.name, m.version, m.kind, m.requires_env) == ("my-plugin", "", "standalone", [])


def test_plugin_yaml_preferred_over_yml(tmp_path: Path) -> None:
    _write(tmp_path, "name: b", name="plugin.yml")
    yaml_file = _write(tmp_path, "name: a")
    assert find_manifest(yaml_file.parent) == str(yaml_file)


def test_unknown_kind_warns_and_is_standalone(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    file = _write(tmp_path, "name: x\nkind: memory-thing\n")
    with caplog.at_level(logging.WARNING):
        assert read_manifest(file).kind == "standalone"
    assert "memory-thing" in caplog.text and str(file) in caplog.text


def test_kind_is_never_inferred_from_source(tmp_path: Path) -> None:
    file = _write(tmp_path, "name: x\n")
    (file.parent / "__init__.py").write_text("# register_memory_provider MemoryProvider\n")
    assert read_manifest(file).kind == "standalone"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("name: [1, 2]", "name"),
        ("name: x\nprovides_tools: 3", "provides_tools"),
        ("name: x\nprovides_hooks: [1]", "provides_hooks"),
        ("name: x\nversion: {a: 1}", "version"),
        ("name: x\nrequires_env: KEY", "requires_env"),
        ("name: x\nrequires_env: [{description: no name}]", "requires_env"),
        ("name: x\ndescription: 5", "description"),
        ("name: x\nprovider_class: provider.py", "provider_class"),
        ("name: x\nprovider_class: ProviderOnly", "provider_class"),
        ("name: x\nprovider_class: [provider, P]", "provider_class"),
        ("name: x\nprovider_class: .provider:P", "provider_class"),
    ],
)
def test_wrong_field_types_name_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    file = _write(tmp_path, text)
    with pytest.raises(ManifestError) as info:
        read_manifest(file, key="my-plugin")
    assert str(file) in str(info.value) and field in str(info.value)
    assert isinstance(info.value, InvalidInputError) and info.value.code == "INVALID_INPUT"
    assert info.value.plugin == "my-plugin"


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    file = _write(tmp_path, "name: x\ndescription: [unclosed\n")
    with pytest.raises(ManifestError, match=r"not valid YAML at line \d+") as info:
        read_manifest(file)
    assert str(file) in str(info.value)


def test_not_a_mapping(tmp_path: Path) -> None:
    file = _write(tmp_path, "- just\n- a list\n")
    with pytest.raises(ManifestError, match="must be a mapping"):
        read_manifest(file)


def test_non_utf8_manifest(tmp_path: Path) -> None:
    file = _write(tmp_path, "name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ManifestError, match="not UTF-8.*save it as UTF-8"):
        read_manifest(file)


def test_huge_manifest_refused_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = _write(tmp_path, "name: x\ndescription: " + "a" * (MAX_MANIFEST_BYTES + 10) + "\n")
    import hermes_nb.plugins.manifest as manifest

    def no_parse(text: str) -> None:
        raise AssertionError("parsed a huge file")

    monkeypatch.setattr(manifest, "_load_yaml", no_parse)
    with pytest.raises(ManifestError, match=r"bytes \(limit 65536\)") as info:
        read_manifest(file)
    assert str(file) in str(info.value)


def test_yaml_tags_are_not_executed(tmp_path: Path) -> None:
    file = _write(tmp_path, "name: !!python/object/apply:os.system ['echo hi']\n")
    with pytest.raises(ManifestError):
        read_manifest(file)


def test_provider_class_is_read(tmp_path: Path) -> None:
    file = _write(tmp_path, "name: x\nprovider_class: ' impl.search:MyProvider '\n")
    manifest = read_manifest(file)
    assert manifest.provider_class == "impl.search:MyProvider" and "provider_class" not in manifest.extra
    assert read_manifest(_write(tmp_path, "name: x\n")).provider_class == ""


def test_bad_provider_class_names_the_fix(tmp_path: Path) -> None:
    file = _write(tmp_path, "name: x\nprovider_class: provider.py\n")
    with pytest.raises(ManifestError, match="provider_class: provider:MyProvider"):
        read_manifest(file)


def test_settings_are_read_with_type_default_choices_and_doc(tmp_path: Path) -> None:
    text = (
        "name: web-acme\nsettings:\n"
        "  - key: web.acme.region\n    type: string\n    default: eu\n    choices: [eu, us]\n"
        "    doc: Region the API answers from.\n"
        "  - key: web.acme.size\n    type: [string, mapping]\n    doc: 'WxH or a mapping.'\n"
    )
    m = read_manifest(_write(tmp_path, text))
    region, size = m.settings
    assert (region.key, region.types, region.default) == ("web.acme.region", ("string",), "eu")
    assert region.choices == ("eu", "us")
    assert region.doc == "Region the API answers from." and region.plugin == "web-acme"
    assert size.types == ("string", "mapping") and size.default is None and size.choices == ()
    assert "settings" not in m.extra


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("  - web.acme.region\n", "needs a key"),
        ("  - key: Web Acme\n    type: string\n    doc: x\n", "dotted lower-case name"),
        ("  - key: web.timeout\n    type: number\n    doc: x\n", "core hermes_nb key"),
        ("  - key: web.acme.region\n    doc: x\n", "needs a type"),
        ("  - key: web.acme.region\n    type: text\n    doc: x\n", "needs a type"),
        ("  - key: web.acme.region\n    type: string\n", "one-line doc"),
        ("  - key: web.acme.region\n    type: integer\n    default: eu\n    doc: x\n", "not of type integer"),
        ("  - key: web.acme.n\n    type: integer\n    default: true\n    doc: x\n", "not of type integer"),
        ("  - key: web.acme.region\n    type: string\n    default: eu\n    choices: [us]\n    doc: x\n",
         "not one of its choices"),
        ("  - key: web.acme.region\n    type: string\n    doc: x\n    help: y\n", "unknown field(s) help"),
        ("  - key: web.acme.region\n    type: string\n    doc: x\n" * 2, "declared twice"),
    ],
)
def test_bad_settings_name_the_file_and_the_fix(tmp_path: Path, entry: str, message: str) -> None:
    path = _write(tmp_path, "name: web-acme\nsettings:\n" + entry)
    with pytest.raises(ManifestError) as info:
        read_manifest(path)
    assert message in str(info.value) and str(path) in str(info.value)
