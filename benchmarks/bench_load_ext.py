"""Time ``%load_ext hermes_nb`` in fresh processes against a trivial extension, side by side.

    python benchmarks/bench_load_ext.py [--runs 10] [--against PATH]

Each run is a new ``python -c`` process that starts an IPython ``InteractiveShell`` with a
temporary ``HERMES_HOME`` and times only the ``%load_ext`` call (discovery of every bundled plugin
included), with bytecode cached as after ``pip install``. The baseline loads a trivial extension
the same way, alternating with the real runs so both see the same machine state; the bare shell
start is reported too. Prints a Markdown line for benchmarks/RESULTS.md. ``--against PATH`` also
times the hermes_nb of another checkout (e.g. ``git worktree add /tmp/before <rev>``), alternating
with this one, and prints the ratio: the before/after figure of a refactoring.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BUDGET_MS = 125.0

_SNIPPET = r"""
import os, sys, tempfile, time
os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="hermes_nb_bench_")
sys.path.insert(0, {ext_dir!r})
shell_start = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
ip.history_manager.enabled = False
start = time.perf_counter()
ip.run_line_magic("load_ext", {name!r})
elapsed = time.perf_counter() - start
assert "web_search" in ip.magics_manager.magics["line"] or {name!r} != "hermes_nb"
print(f"{{elapsed * 1000:.3f}} {{(start - shell_start) * 1000:.3f}}")
"""

_TRIVIAL = '''"""A do-nothing IPython extension: the baseline."""


def load_ipython_extension(ip):
    ip.user_ns["_trivial_loaded"] = True
'''


def _one(name: str, ext_dir: str, tree: Path | None = None) -> tuple[float, float]:
    """(ms of the %load_ext call, ms of the bare InteractiveShell start) in a fresh process."""
    code = _SNIPPET.format(name=name, ext_dir=ext_dir)
    # Bytecode is cached (as after a pip install) but outside the source tree.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(ext_dir) / "pycache" / (tree.name if tree else "here"))
    if tree is not None:  # import hermes_nb (and its plugins/) from that checkout
        env["PYTHONPATH"] = str(tree)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60, env=env
    )
    load_ms, shell_ms = out.stdout.strip().splitlines()[-1].split()
    return float(load_ms), float(shell_ms)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="processes per variant (default 10)")
    parser.add_argument("--against", type=Path, help="another checkout to time side by side")
    args = parser.parse_args(argv)
    if args.against is not None:
        return _compare(args.against.resolve(), args.runs)
    with tempfile.TemporaryDirectory() as ext_dir:
        (Path(ext_dir) / "trivial_ext.py").write_text(_TRIVIAL, encoding="utf-8")
        _one("hermes_nb", ext_dir)  # warm the OS file cache and the bytecode cache, untimed
        _one("trivial_ext", ext_dir)
        ours, base, shell = [], [], []
        for _ in range(args.runs):
            load_ms, shell_ms = _one("hermes_nb", ext_dir)
            ours.append(load_ms)
            shell.append(shell_ms)
            base.append(_one("trivial_ext", ext_dir)[0])
    med, med_base, med_shell = statistics.median(ours), statistics.median(base), statistics.median(shell)
    verdict = "within" if med <= BUDGET_MS else "OVER"
    print(
        f"| `%load_ext hermes_nb` (fresh process, {args.runs} runs) | median {med:.1f} ms "
        f"(min {min(ours):.1f}, max {max(ours):.1f}) | trivial extension {med_base:.2f} ms, "
        f"bare InteractiveShell start {med_shell:.0f} ms | delta {med - med_base:.1f} ms; "
        f"{med / med_shell:.2f}x the shell start | {verdict} the {BUDGET_MS:.0f} ms budget |"
    )
    return 0 if med <= BUDGET_MS else 1


def _compare(other: Path, runs: int) -> int:
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as ext_dir:
        for tree in (here, other):
            _one("hermes_nb", ext_dir, tree)  # warm caches, untimed
        now, before = [], []
        for _ in range(runs):
            now.append(_one("hermes_nb", ext_dir, here)[0])
            before.append(_one("hermes_nb", ext_dir, other)[0])
    med_now, med_before = statistics.median(now), statistics.median(before)
    print(
        f"| `%load_ext hermes_nb`, this tree vs {other.name} ({runs} runs each, alternating) | "
        f"{med_now:.1f} ms vs {med_before:.1f} ms median | ratio {med_now / med_before:.2f} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
