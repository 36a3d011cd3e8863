"""The cache from notebooks and shells: --no-cache, --refresh, --new; %hermes cache; hermes-nb cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from hermes_nb import cli, config
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture
def emu(hermetic: Path) -> Iterator[Emulator]:
    with Emulator(seed=0) as server, use_emulator(server, ["brave", "tavily", "openai"]):
        config.set("web.search_backend", "brave")
        config.set("web.extract_backend", "tavily")
        config.set("image_gen.provider", "openai")
        yield server


@pytest.fixture
def ip(emu: Emulator) -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    shell.history_manager.enabled = False
    shell.extension_manager.load_extension("hermes_nb")
    yield shell
    shell.extension_manager.unload_extension("hermes_nb")


def _count(emu: Emulator, provider: str) -> int:
    return len(emu.requests_for(provider))


def test_search_magics_take_no_cache_and_refresh(ip: InteractiveShell, emu: Emulator) -> None:
    first = ip.run_line_magic("web_search", "-n 3 magic cache")
    again = ip.run_line_magic("web_search", "-n 3 magic cache")
    assert not first.cached and again.cached and _count(emu, "brave") == 1
    assert not ip.run_line_magic("web_search", "--no-cache -n 3 magic cache").cached
    assert not ip.run_line_magic("web_search", "--refresh -n 3 magic cache").cached
    assert _count(emu, "brave") == 3
    cell = ip.run_cell_magic("web_search", "--no-cache -n 2", "magic cache\nother query\n")
    assert [r.cached for r in cell] == [False, False] and _count(emu, "brave") == 5


def test_extract_and_crawl_magics_take_the_flags(ip: InteractiveShell, emu: Emulator) -> None:
    url = emu.page_url("/site/articles/hello-world.html")
    ip.run_line_magic("web_extract", url)
    assert ip.run_line_magic("web_extract", url).cached
    assert not ip.run_line_magic("web_extract", f"--refresh {url}").cached
    assert not ip.run_line_magic("web_extract", f"--no-cache {url}").cached


def test_imagine_rerun_makes_no_request_and_new_makes_one(ip: InteractiveShell, emu: Emulator) -> None:
    first = ip.run_line_magic("imagine", "-a square --seed 4 a quiet harbour")
    again = ip.run_line_magic("imagine", "-a square --seed 4 a quiet harbour")
    assert _count(emu, "openai") == 1 and again.cached and again.sha256 == first.sha256
    cell = ip.run_cell_magic("imagine", "-a square --seed 4", "a quiet harbour\n")
    assert cell.cached and _count(emu, "openai") == 1
    fresh = ip.run_line_magic("imagine", "--new -a square --seed 4 a quiet harbour")
    assert not fresh.cached and _count(emu, "openai") == 2


def test_hermes_cache_subcommands(ip: InteractiveShell, emu: Emulator, tmp_path: Path) -> None:
    ip.run_line_magic("web_search", "-n 3 subcommand check")
    stats = ip.run_line_magic("hermes", "cache stats")
    assert "searches" in repr(stats) and "cache.mode: read_write" in repr(stats)
    entries = ip.run_line_magic("hermes", "cache entries search")
    assert "search 'subcommand check' (limit 3, backend brave)" in repr(entries)
    path = tmp_path / "nb.hnb.jsonl"
    assert "cassette written" in repr(ip.run_line_magic("hermes", f"cache export {path} --since 2000-01-01"))
    report = ip.run_line_magic("hermes", f"cache drift {path}")
    assert [row.status for row in report] == ["same"]
    assert "cleared" in repr(ip.run_line_magic("hermes", "cache clear cache"))
    assert "1 recorded answer(s) loaded" in repr(ip.run_line_magic("hermes", f"cache load {path}"))
    assert "Image costs" in repr(ip.run_line_magic("hermes", "cache costs"))
    with pytest.raises(UsageError, match="usage: %hermes cache"):
        ip.run_line_magic("hermes", "cache frobnicate")
    with pytest.raises(UsageError, match="needs one cassette path"):
        ip.run_line_magic("hermes", "cache drift")


def test_cli_cache_commands(emu: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_nb import web

    web.search("shell check", 3)
    assert cli.main(["cache", "stats"]) == 0
    assert "searches" in capsys.readouterr().out
    assert cli.main(["cache", "entries", "--kind", "search"]) == 0
    assert "search 'shell check'" in capsys.readouterr().out
    path = tmp_path / "cli.hnb.jsonl"
    assert cli.main(["cache", "export", str(path)]) == 0 and path.is_file()
    capsys.readouterr()
    assert cli.main(["cache", "drift", str(path)]) == 0
    assert "0 of 1 request(s) changed" in capsys.readouterr().out
    emu.seed = 3
    assert cli.main(["cache", "drift", str(path)]) == 1  # drift is a failing status, for CI
    assert "changed" in capsys.readouterr().out
    assert cli.main(["cache", "load"]) != 0
    assert "needs a cassette path" in capsys.readouterr().err
