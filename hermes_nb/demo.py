"""``hermes-nb demo``: execute the quickstart notebook and write an HTML report.

Offline by default: the notebook's first cell starts the local provider emulator, so the demo needs
no network and no keys, and the report says so. ``--live`` replaces that cell with a live setup
that uses the real keyless providers (auto selection, no keys: the same ring and the same
errors as a fresh notebook) and skips the cells that need the emulator.

The notebook is ``notebooks/01_quickstart.ipynb`` in a source checkout, else the copy shipped in
the package (``hermes_nb/_demo/quickstart.ipynb``, refreshed by ``notebooks/_execute.py``), so
the demo also works from a wheel.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from hermes_nb.redaction import is_secret_name

__all__ = ["main", "find_notebook", "run_demo", "report_html"]

EMULATOR_NOTE = "Results in this report come from the local provider emulator, not the real web."
LIVE_NOTE = "Results in this report come from the real web (keyless providers)."

_LIVE_SETUP = """import os
import tempfile

_home = tempfile.TemporaryDirectory(prefix="hermes_nb_")  # removed when the kernel stops
os.environ["HERMES_HOME"] = _home.name
import hermes_nb as hn  # no keys, auto selection: the keyless ring, as in a fresh notebook

%load_ext hermes_nb"""


_NEEDS_EMULATOR = ("emu.", "emulated", "imagine", "img")


def find_notebook() -> Path:
    """The quickstart notebook: the repository's when running from a checkout, else the packaged copy."""
    package = Path(__file__).resolve().parent
    checkout = package.parent / "notebooks" / "01_quickstart.ipynb"
    if checkout.is_file():
        return checkout
    return package / "_demo" / "quickstart.ipynb"


def _live_cells(nb: Any) -> None:
    """Swap the emulator setup for a live one; drop cells that need the emulator or an image key."""
    kept = []
    for cell in nb.cells:
        source = cell.source
        if cell.cell_type == "code" and "Emulator(" in source:
            cell.source = _LIVE_SETUP
        elif cell.cell_type == "code" and any(
            word in source for word in ("emu.", "emulated", "imagine", "img")
        ):
            continue
        kept.append(cell)
    nb.cells = kept


def _banner(nb: Any, note: str) -> None:
    from nbformat.v4 import new_markdown_cell

    nb.cells.insert(0, new_markdown_cell(f"> **hermes-nb demo.** {note}"))


def run_demo(out: Path, *, live: bool = False, theme: str = "light", timeout: int = 120) -> Path:
    """Execute the quickstart into ``out`` and return the path of ``report.html``."""
    import nbformat
    from nbclient import NotebookClient

    out.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(find_notebook(), as_version=4)
    if live:
        _live_cells(nb)
    _banner(nb, LIVE_NOTE if live else EMULATOR_NOTE)
    # The kernel inherits the environment: no progress bars in the report, and live means keyless —
    # a key in the caller's environment would otherwise send the demo to a paid provider.
    secrets = [k for k in os.environ if live and is_secret_name(k)]
    saved = {k: os.environ.get(k) for k in ("CI", "HERMES_NB_PROGRESS", *secrets)}
    os.environ.update(CI="1", HERMES_NB_PROGRESS="0")
    for key in secrets:
        del os.environ[key]
    try:
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(out)}},
            # the kernel's start-up notices (an unencrypted local TCP socket) are not the demo's news
            extra_arguments=["--IPKernelApp.log_level=ERROR"],
        )
        client.execute()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    nbformat.write(nb, out / "quickstart.ipynb")
    report = out / "report.html"
    report.write_text(report_html(nb, theme=theme), encoding="utf-8")
    return report


#: JupyterLab's export template without what it would fetch from a CDN (require.js, MathJax,
#: Mermaid, the widget manager): the report's outputs are static HTML and images, so it opens
#: complete offline and sends no request when it is opened.
_OFFLINE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
"""


def report_html(nb: Any, *, theme: str = "light") -> str:
    """``nb`` as one self-contained HTML page that loads nothing from the network."""
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        template_name="lab",
        theme=theme,
        extra_loaders=[DictLoader({"hermes_nb_report.html.j2": _OFFLINE_TEMPLATE})],
        template_file="hermes_nb_report.html.j2",
    )
    body, _ = exporter.from_notebook_node(nb)
    return str(body)


def _failure(exc: BaseException) -> str:
    """The failing cell's own error, whole (``UsageError: NETWORK_ERROR: …``), not nbclient's frame.

    A magic wraps its message for the notebook's error box; here it is one line again.
    """
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    if ename:
        return f"a notebook cell failed: {ename}: {' '.join(str(evalue or '').split())}".rstrip(": ")
    lines = [line for line in str(exc).strip().splitlines() if line.strip("-= ")]
    return f"{type(exc).__name__}: {lines[-1] if lines else ''}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``hermes-nb demo``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="hermes-nb demo", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", default="hermes_nb_demo", help="Folder for report.html (default ./hermes_nb_demo)"
    )
    parser.add_argument("--live", action="store_true", help="Use the real keyless providers (needs network).")
    parser.add_argument("--theme", choices=["light", "dark"], default="light", help="Report colour theme.")
    args = parser.parse_args(argv)
    start = time.monotonic()
    print(
        f"hermes-nb demo: running the quickstart notebook ({'live' if args.live else 'offline, emulator'}) …"
    )
    try:
        report = run_demo(Path(args.out), live=args.live, theme=args.theme)
    except Exception as exc:  # the CLI answers with one line
        print(f"demo failed: {_failure(exc)}", file=sys.stderr)
        return 1
    print(f"report written to {report} in {time.monotonic() - start:.1f}s")
    print(LIVE_NOTE if args.live else EMULATOR_NOTE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
