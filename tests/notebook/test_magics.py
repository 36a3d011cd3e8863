"""The IPython extension and magics, driven in a real ``InteractiveShell``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from traitlets import TraitError

from hermes_nb import config
from hermes_nb.errors import ProviderAuthError
from hermes_nb.notebook import rendering
from hermes_nb.notebook.interpolate import InterpolationError, interpolate
from hermes_nb.notebook.magic_error import MagicError
from hermes_nb.plugins.image_provider import ImageGenProvider, save_bytes_image, success_response
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider


class FakeWeb(WebSearchProvider):
    """Answers every query with ``limit`` numbered hits; records the queries it saw."""

    name = "fakeweb"

    def __init__(self) -> None:
        self.queries: list[str] = []

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> Any:
        self.queries.append(query)
        hits = [
            {"title": f"{query} #{i}", "url": f"https://ex.org/{i}", "description": "d <b>", "position": i}
            for i in range(1, limit + 1)
        ]
        return {"success": True, "data": {"web": hits}}

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        page = {"title": "T", "content": "# Head\n\nbody **bold**", "raw_content": ""}
        return [{"url": u, **page} for u in urls]


class NoKeyWeb(FakeWeb):
    name = "nokey"

    def search(self, query: str, limit: int = 5) -> Any:
        raise ProviderAuthError("nokey rejected the key; set NOKEY_API_KEY", provider="nokey", status=401)


class FakeImages(ImageGenProvider):
    name = "fakeimg"

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        import io

        from PIL import Image

        buf = io.BytesIO()
        Image.new("RGB", (640, 400), (200, 40, 40)).save(buf, format="PNG")
        path = save_bytes_image(buf.getvalue(), prefix="fake")
        return success_response(
            image=str(path), model="fake-1", prompt=prompt, aspect_ratio=aspect_ratio, provider="fakeimg"
        )


@pytest.fixture
def ip() -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    shell.history_manager.enabled = False
    shell.extension_manager.load_extension("hermes_nb")
    web_providers.register(FakeWeb())
    web_providers.register(NoKeyWeb())
    image_providers.register(FakeImages())
    config.set("web.search_backend", "fakeweb")
    config.set("web.extract_backend", "fakeweb")
    config.set("image_gen.provider", "fakeimg")
    config.set("cache.mode", "off")
    yield shell
    shell.extension_manager.unload_extension("hermes_nb")
    shell.config.pop("HermesMagics", None)  # %config writes into the shared shell's config
    shell.user_ns.pop("q", None)


def _provider() -> FakeWeb:
    provider = web_providers.get("fakeweb")
    assert isinstance(provider, FakeWeb)
    return provider


def test_load_registers_magics_and_unload_removes_them(ip: InteractiveShell) -> None:
    line = ip.magics_manager.magics["line"]
    assert {"web_search", "web_extract", "web_crawl", "imagine", "hermes"} <= set(line)
    assert {"web_search", "imagine"} <= set(ip.magics_manager.magics["cell"])
    ip.extension_manager.unload_extension("hermes_nb")
    assert "web_search" not in ip.magics_manager.magics["line"]
    assert "HermesMagics" not in ip.magics_manager.registry
    ip.extension_manager.load_extension("hermes_nb")
    assert "web_search" in ip.magics_manager.magics["line"]


def test_reload_keeps_one_instance(ip: InteractiveShell) -> None:
    ip.extension_manager.reload_extension("hermes_nb")
    instances = [c for c in ip.configurables if type(c).__name__ == "HermesMagics"]
    assert len(instances) == 1


def test_load_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    shell = InteractiveShell.instance()
    capsys.readouterr()
    shell.extension_manager.load_extension("hermes_nb")
    try:
        out = capsys.readouterr()
        assert out.out == "" and out.err == ""
    finally:
        shell.extension_manager.unload_extension("hermes_nb")


def test_line_magic_returns_result_and_assignment_works(ip: InteractiveShell) -> None:
    result = ip.run_line_magic("web_search", "-n 3 jupyter widgets")
    assert type(result).__name__ == "SearchResult" and len(result.hits) == 3
    cell = ip.run_cell("r = %web_search -n 2 pandas")
    assert cell.error_in_exec is None
    assert [h.position for h in ip.user_ns["r"].hits] == [1, 2]


def test_json_flag_returns_the_envelope(ip: InteractiveShell) -> None:
    env = ip.run_line_magic("web_search", "--json -n 1 x")
    assert env["success"] is True and env["data"]["web"][0]["title"] == "x #1"


def test_interpolation_by_name_only(ip: InteractiveShell) -> None:
    ip.user_ns["topic"] = "rust"
    ip.run_line_magic("web_search", '-n 1 {{topic}} {"json": 1} {{missing}} {single}')
    assert _provider().queries[-1] == 'rust {"json": 1} {{missing}} {single}'


def test_interpolate_does_not_evaluate_code() -> None:
    ns = {"a": type("A", (), {"b": 3})(), "x": 1}
    assert interpolate("{{a.b}} {{ x }}", ns) == "3 1"
    assert interpolate("{{__import__}} {{missing}}", ns) == "{{__import__}} {{missing}}"
    for expression in ("{{x + 1}}", "{{a.__class__}}", "{{urls[0]}}"):
        with pytest.raises(InterpolationError, match="not a variable name|private attributes"):
            interpolate(expression, ns)
    assert interpolate("{x} {{{x}}}", ns) == "{x} {1}"


def test_cell_magic_batch_with_output_variable(ip: InteractiveShell) -> None:
    ip.user_ns["q"] = "third"
    value = ip.run_cell_magic("web_search", "-n 2 -o hits", "first\n\nsecond\n{{q}}\n")
    assert ip.user_ns["hits"] is value
    assert [r.query for r in value] == ["first", "second", "third"]
    text = value._repr_mimebundle_()["text/plain"]
    assert "query='second'" in text


def test_extract_line_magic(ip: InteractiveShell) -> None:
    result = ip.run_line_magic("web_extract", "https://ex.org/a https://ex.org/b")
    assert [p.url for p in result.pages] == ["https://ex.org/a", "https://ex.org/b"]
    assert "<strong>bold</strong>" in rendering.static_html(result)


def test_imagine_line_and_cell(ip: InteractiveShell, tmp_path: Path) -> None:
    img = ip.run_line_magic("imagine", "-a square a red fox")
    assert type(img).__name__ == "ImageResult" and img.prompt == "a red fox"
    ip.user_ns["animal"] = "owl"
    out = ip.run_cell_magic("imagine", "-o pic", "a long prompt about an {{animal}}\nwith {braces}")
    assert ip.user_ns["pic"] is out
    assert out.prompt == "a long prompt about an owl\nwith {braces}"


def test_help_comes_from_magic_arguments(ip: InteractiveShell) -> None:
    doc = ip.find_line_magic("web_search").__doc__
    assert "--limit" in doc and "--backend" in doc and "--json" in doc


@pytest.mark.parametrize(
    ("magic", "line"),
    [
        ("web_search", "--bogus q"),
        ("web_search", ""),
        ("web_search", "-n notanumber q"),
        ("imagine", "-a wide a fox"),
        ("web_extract", ""),
        ("hermes", ""),
        ("hermes", "frobnicate"),
        ("hermes", "use search"),
        ("hermes", "config set"),
        ("hermes", "tools call x {not json"),
    ],
)
def test_usage_errors(ip: InteractiveShell, magic: str, line: str) -> None:
    with pytest.raises(UsageError):
        ip.run_line_magic(magic, line)


def test_hermes_error_becomes_one_line_without_traceback(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    result = ip.run_cell("%web_search -b nokey q")
    shown = capsys.readouterr()
    # An error (the cell fails under nbval), shown as its message only: no traceback, no stderr line.
    assert isinstance(result.error_in_exec, MagicError) and isinstance(result.error_in_exec, UsageError)
    assert shown.err == "" and shown.out.strip().count("\n") == 0
    assert shown.out.startswith("PROVIDER_AUTH_FAILED: ") and "NOKEY_API_KEY" in shown.out
    assert "Traceback" not in shown.out


@pytest.mark.parametrize("line", ["%web_search --no-such-option q", "%hermes frobnicate"])
def test_a_usage_error_fails_the_cell_too(
    ip: InteractiveShell, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    capsys.readouterr()
    result = ip.run_cell(line)
    shown = capsys.readouterr()
    assert isinstance(result.error_in_exec, MagicError)
    assert shown.err == "" and "Traceback" not in shown.out and shown.out.strip()


def test_unknown_provider_names_the_fix(ip: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="%hermes"):
        ip.run_line_magic("web_search", "-b nosuchprovider q")


def test_short_errors_off_raises_the_original(ip: InteractiveShell) -> None:
    ip.run_line_magic("config", "HermesMagics.short_errors = False")
    with pytest.raises(ProviderAuthError):
        ip.run_line_magic("web_search", "-b nokey q")


def test_traits_set_display_options(ip: InteractiveShell) -> None:
    ip.run_line_magic("config", "HermesMagics.max_results = 2")
    ip.run_line_magic("config", "HermesMagics.embed = 'link'")
    assert rendering.get_options()["max_results"] == 2 and rendering.get_options()["embed"] == "link"
    data = rendering.mimebundle(ip.run_line_magic("web_search", "-n 4 q"))
    assert "… and 2 more" in data["text/plain"] and "text/html" in data
    with pytest.raises(TraitError):
        ip.magics_manager.registry["HermesMagics"].embed = "huge"


def test_hermes_use_and_config(ip: InteractiveShell) -> None:
    ip.run_line_magic("hermes", "use search nokey")
    assert config.get("web.search_backend") == "nokey"
    ip.run_line_magic("hermes", "use search auto")
    assert config.get("web.search_backend") is None
    with pytest.raises(UsageError, match="PROVIDER_NOT_FOUND"):
        ip.run_line_magic("hermes", "use search nosuch")
    ip.run_line_magic("hermes", "config set display.max_results 7")
    assert config.get("display.max_results") == 7
    assert "7" in repr(ip.run_line_magic("hermes", "config get display.max_results"))


def test_hermes_config_show_never_shows_secrets(ip: InteractiveShell) -> None:
    config.set_key("BRAVE_SEARCH_API_KEY", "sk-very-secret-value-123")
    table = ip.run_line_magic("hermes", "config show")
    assert "sk-very-secret" not in repr(table) and "sk-very-secret" not in table._repr_html_()
    with pytest.raises(UsageError):
        ip.run_line_magic("hermes", "config set web.brave.api_key abc")


def test_hermes_listings(ip: InteractiveShell) -> None:
    providers = repr(ip.run_line_magic("hermes", "providers"))
    assert "fakeweb" in providers and "fakeimg" in providers and "✅" in providers
    assert "fakeimg" not in repr(ip.run_line_magic("hermes", "providers web"))
    assert "web/" in repr(ip.run_line_magic("hermes", "plugins"))
    assert "check" in repr(ip.run_line_magic("hermes", "doctor"))
    assert "tool" in repr(ip.run_line_magic("hermes", "tools list"))
    stats = repr(ip.run_line_magic("hermes", "cache stats"))
    assert "searches" in stats
    assert "cleared" in repr(ip.run_line_magic("hermes", "cache clear"))


class OfflineKeyless(FakeWeb):
    """A keyless provider without network: a different DNS error on every call."""

    name = "offline-keyless"
    tier = "keyless"

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def search(self, query: str, limit: int = 5) -> Any:
        from hermes_nb.errors import NetworkError

        self.calls += 1
        raise NetworkError(f"DNSError: engine-{self.calls}.example not found", provider=self.name)


class KeyedButUnset(FakeWeb):
    name = "keyed"
    tier = "commercial"

    def is_available(self) -> bool:
        return False

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": "Keyed", "env_vars": [{"key": "KEYED_API_KEY"}]}


class SelfHostedUnset(FakeWeb):
    name = "searxng"
    tier = "self_hosted"

    def is_available(self) -> bool:
        return False


def test_no_key_no_network_is_one_stable_line(ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> None:
    import hermes_nb as hn
    from hermes_nb.errors import NetworkError

    monkeypatch.setattr(web_providers, "loader", None)
    web_providers.clear()
    web_providers.register(OfflineKeyless())
    web_providers.register(KeyedButUnset())
    web_providers.register(SelfHostedUnset())
    config.unset("web.search_backend")
    lines = []
    for _ in range(2):
        with pytest.raises(UsageError) as info:
            ip.run_line_magic("web_search", "anything")
        lines.append(str(info.value))
    assert lines[0] == lines[1]  # the same words every run, so saved notebooks do not change
    assert "DNSError" not in lines[0] and "Full detail" not in lines[0]
    text = " ".join(lines[0].split())  # wrapped between words for JupyterLab's error box
    for way in ("KEYED_API_KEY", "hn.config.set_key", "use_emulator", "web.searxng.base_url"):
        assert way in text
    with pytest.raises(NetworkError) as sdk:  # the Python API says the same
        hn.search("anything")
    assert text == f"{sdk.value.code}: {sdk.value.message}"
    assert [a.code for a in sdk.value.details["attempts"]] == ["NETWORK_ERROR"]


def test_a_keyed_failure_keeps_its_own_message(ip: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="nokey rejected the key"):
        ip.run_line_magic("web_search", "-b nokey anything")


def test_hermes_use_warns_at_once_when_the_provider_is_not_ready(
    ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    web_providers.register(KeyedButUnset())
    message = ip.run_line_magic("hermes", "use search keyed")
    assert config.get("web.search_backend") == "keyed"  # the choice is kept …
    assert "not ready yet" in repr(message) and "KEYED_API_KEY" in repr(message)  # … and its needs, now
    assert "not ready" not in repr(ip.run_line_magic("hermes", "use search fakeweb"))


def test_an_expression_in_double_braces_is_reported_not_sent(ip: InteractiveShell) -> None:
    ip.user_ns["urls"] = ["https://ex.org/a"]
    with pytest.raises(UsageError, match=r"\{\{urls\[0\]\}\} is not a variable name"):
        ip.run_line_magic("web_extract", "{{urls[0]}}")


def test_use_widgets_without_ipywidgets_is_a_warning_naming_the_extra(
    ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "anywidget", None)  # any import of it fails: not installed
    from hermes_nb.notices import HermesWarning

    magics = ip.magics_manager.registry["HermesMagics"]
    with pytest.warns(HermesWarning, match=r"pip install 'hermes_nb\[widgets\]'"):
        magics.use_widgets = True
    assert magics.use_widgets is False
    caplog.clear()
    with pytest.warns(HermesWarning):  # %config HermesMagics.use_widgets = True: a warning, not ERROR:root:
        ip.run_line_magic("config", "HermesMagics.use_widgets = True")
    assert caplog.records == [] and magics.use_widgets is False
    assert rendering.get_options()["use_widgets"] is False


def test_long_errors_wrap_between_words(ip: InteractiveShell) -> None:
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("web_search", "-b nosuchprovider hello")
    lines = str(info.value).splitlines()
    assert len(lines) > 1 and all(len(line) <= 76 for line in lines)
    assert "%hermes providers" in " ".join(str(info.value).split())  # never "%herm es"


def test_load_ext_keeps_heavy_modules_off_the_start_up_path(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "InteractiveShell.instance().run_line_magic('load_ext', 'hermes_nb')\n"
        "print(sorted(m for m in ('httpx', 'trafilatura', 'PIL', 'pandas', 'lxml') if m in sys.modules))\n"
    )
    env = {"HERMES_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"  # each is imported on first use, not by %load_ext


def test_imagine_without_any_provider_is_one_short_line(
    ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    class PaidUnset(FakeImages):
        def __init__(self, name: str, key: str) -> None:
            self.name, self.key = name, key  # type: ignore[misc]  # a plain attribute on the fake

        def is_available(self) -> bool:
            return False

        def get_setup_schema(self) -> dict[str, Any]:
            return {"name": self.name, "env_vars": [{"key": self.key}]}

    monkeypatch.setattr(image_providers, "loader", None)
    image_providers.clear()
    for i in range(12):  # as many providers as are bundled: the message does not grow with them
        image_providers.register(PaidUnset(f"paid{i:02}", f"PAID{i:02}_API_KEY"))
    config.unset("image_gen.provider")
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("imagine", "a lighthouse")
    text = str(info.value)
    assert len(text) < 400 and text.count("\n") <= 5  # not twenty lines
    flat = " ".join(text.split())
    assert flat.startswith("PROVIDER_NOT_CONFIGURED: no image provider is available")
    assert "PAID00_API_KEY" in flat and "…" in flat and "PAID11_API_KEY" not in flat
    assert "use_emulator" in flat and "%hermes providers" in flat and "Full detail" not in flat


def test_a_capped_count_is_noted_when_the_result_is_assigned(ip: InteractiveShell) -> None:
    from hermes_nb.notices import HermesWarning

    class Capped(FakeWeb):
        name = "capped"
        max_limit = 20

    web_providers.register(Capped())
    with pytest.warns(HermesWarning) as seen:
        result = ip.run_cell("r = %web_search -b capped -n 1000 anything")
    assert result.success and result.result is None  # assigned: nothing is displayed …
    notes = [str(w.message) for w in seen]  # … and the caps are still said
    assert "capped returns at most 20 results; asked for 100" in notes
    assert "at most 100 results per search; asked for 1000" in notes
    assert all(not w.filename.endswith(".py") or "hermes_nb" not in w.filename for w in seen)


def test_load_ext_with_a_broken_config_is_one_line_and_repairable(
    hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (hermetic / "config.yaml").write_text("plugins:\n  disabled: 5\n", encoding="utf-8")
    shell = InteractiveShell.instance()
    capsys.readouterr()
    result = shell.run_cell("%load_ext hermes_nb")
    try:
        err = capsys.readouterr().err
        assert result.success and "Traceback" not in err
        flat = " ".join(err.split())
        assert flat.startswith("INVALID_INPUT: ") and "plugins.disabled must be a list" in flat
        assert "%hermes config set" in flat and flat.endswith("then %reload_ext hermes_nb")
        shell.run_line_magic("hermes", "config set plugins.disabled []")  # the magics stayed to repair it
        config.save({"plugins.disabled": []})
        shell.extension_manager.reload_extension("hermes_nb")
        assert "web_search" in shell.magics_manager.magics["line"]
        assert capsys.readouterr().err == ""
    finally:
        shell.extension_manager.unload_extension("hermes_nb")
