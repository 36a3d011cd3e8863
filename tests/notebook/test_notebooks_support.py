"""The example notebooks' contract (emulator label, no %env, sanitizer), the packaged copy and the demo."""

from __future__ import annotations

import configparser
import os
import re
from pathlib import Path

import nbformat
import pytest
from paths import REPO

from hermes_nb import demo

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXPECTED = [
    "01_quickstart",
    "02_web_search_and_providers",
    "03_extract_and_crawl",
    "04_image_generation",
    "05_writing_a_plugin",
    "06_tools_hooks_and_llms",
    "07_testing_your_notebooks_offline",
    "08_record_and_replay",
    "09_batches_to_datasets",
    "10_video",
]


def test_every_example_notebook_exists() -> None:
    assert [p.stem for p in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_contract(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    label = next(i for i, text in enumerate(markdown) if "emulator, not the real web" in text)
    assert label <= 1, "the emulator label must come before any result"
    setup = code[0].source
    assert "HERMES_HOME" in setup and "use_emulator(" in setup and "%load_ext hermes_nb" in setup
    for cell in code:
        assert not re.search(r"^\s*%env\b", cell.source, re.M), "keys are asked with getpass, never %env"
        assert not re.search(r"(sk-|api[_-]?key\s*=\s*['\"])\w{8,}", cell.source, re.I)
    checked = [c for c in code if "NBVAL_CHECK_OUTPUT" in c.source]
    assert checked, "each notebook pins at least one contract cell"
    assert all(c.execution_count is not None for c in checked), "commit notebooks executed (run _execute.py)"
    for cell in code:
        stderr = "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr")
        assert stderr == "", f"nbval compares stderr; cell printed {stderr[:200]!r}"
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if "raises-exception" in cell.metadata.get("tags", []):
            # a failed magic: an error output (nbval sees it) whose traceback is one short message,
            # wrapped between words so JupyterLab never splits one
            assert [e.ename for e in errors] == ["MagicError"], "a raises-exception cell shows its error"
            lines = errors[0].traceback
            assert re.match(r"[A-Z_]+: ", lines[0]) and all(len(line) <= 90 for line in lines)
            assert not any("Traceback" in line or "\x1b" in line for line in lines)
        else:
            assert not errors, "only cells tagged raises-exception may fail"


def test_sanitizer_file_is_valid() -> None:
    parser = configparser.ConfigParser()
    parser.read(REPO / "notebooks" / "nbval_sanitize.cfg")
    assert parser.sections()
    samples = {
        "http://127.0.0.1:43121/site/": "127.0.0.1:PORT",
        'href="file:///tmp/hermes_nb_x1/cache/img.png"': "TMP_PATH",
        "in 0.42s": "N.NNs",
    }
    for text, expected in samples.items():
        out = text
        for section in parser.sections():
            out = re.sub(parser[section]["regex"], parser[section]["replace"], out)
        assert expected in out, (text, out)


def test_packaged_quickstart_matches_the_notebook() -> None:
    packaged = nbformat.read(REPO / "hermes_nb" / "_demo" / "quickstart.ipynb", as_version=4)
    source = nbformat.read(REPO / "notebooks" / "01_quickstart.ipynb", as_version=4)
    assert [c.source for c in packaged.cells] == [c.source for c in source.cells]
    assert all(not getattr(c, "outputs", []) for c in packaged.cells)


def test_live_mode_drops_emulator_cells() -> None:
    nb = nbformat.read(demo.find_notebook(), as_version=4)
    demo._live_cells(nb)
    sources = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "Emulator(" not in sources and "emu." not in sources
    assert "_backend" not in sources  # auto selection, as in a fresh notebook: the same errors offline


@pytest.mark.slow
def test_demo_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "emulator" in printed and "report.html" in printed
    report = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert demo.EMULATOR_NOTE in report
    assert "hermes-nb-search" in report and "data:image/jpeg;base64" in report
    assert _fetched(report) == []  # the report loads nothing from a CDN


def _fetched(page: str) -> list[str]:
    """What opening ``page`` would fetch from the network: scripts, stylesheets, module imports."""
    found = re.findall(r"<(?:script|img|iframe)\b[^>]*\bsrc=[\"']?(https?:|//)[^\"'\s>]*", page, re.I)
    found += re.findall(r"<link\b[^>]*\bhref=[\"']?((?:https?:)?//[^\"'\s>]*)", page, re.I)
    found += re.findall(r"(?:import\(|@import\s+(?:url\()?)[\"']?((?:https?:)?//[^\"')\s]*)", page, re.I)
    return found


def test_the_report_template_loads_nothing_from_a_cdn() -> None:
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    two = new_output("execute_result", {"text/plain": "2"}, execution_count=1)
    nb = new_notebook(cells=[
        new_markdown_cell("An equation $e^{i\\pi} + 1 = 0$ and a [link](https://example.org/)."),
        new_code_cell("1 + 1", outputs=[two]),
    ])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    page = demo.report_html(nb)
    assert "e^{i" in page and ">2<" in page.replace("\n", "")  # the cells are there …
    assert _fetched(page) == [] and "cdnjs" not in page and "unpkg" not in page  # … and nothing is fetched


def test_a_failing_demo_cell_is_reported_by_its_own_error() -> None:
    from nbclient.exceptions import CellExecutionError

    from hermes_nb.demo import _failure

    exc = CellExecutionError(
        "------------------\n%web_search x\n------------------\n\nUsageError: NETWORK_ERROR: …\n",
        "UsageError",
        "NETWORK_ERROR: web search failed: no provider with a key is set\nup and the keyless ones could not"
        "\nreach the web. Ways forward: …",  # as the magic wraps it for the notebook
    )
    assert _failure(exc) == (  # the whole message, on one line, with the notebook's code
        "a notebook cell failed: UsageError: NETWORK_ERROR: web search failed: "
        "no provider with a key is set up and the keyless ones could not reach the web. Ways forward: …"
    )
    assert _failure(RuntimeError("kernel died\n------------------")) == "RuntimeError: kernel died"


def test_a_live_demo_runs_keyless(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The kernel of ``--live`` sees no key from the caller's environment: keyless, as its note says."""
    import nbclient

    seen: dict[str, str | None] = {}

    def execute(self: object) -> None:
        seen.update(key=os.environ.get("BRAVE_SEARCH_API_KEY"), ci=os.environ.get("CI"))

    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "brave-" + "k" * 20)
    monkeypatch.setattr(nbclient.NotebookClient, "execute", execute)
    demo.run_demo(tmp_path / "out", live=True)
    assert seen == {"key": None, "ci": "1"}
    assert os.environ["BRAVE_SEARCH_API_KEY"] == "brave-" + "k" * 20  # restored afterwards
