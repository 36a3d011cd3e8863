"""Discovery of 200 manifest-only plugins: target <= 50 ms, and no plugin module imported.

Run: ``.venv/bin/python benchmarks/bench_discovery.py``. The baseline, measured side by side on the
same files, is the least any discovery must do: list the folders and ``yaml.safe_load`` (C loader)
each manifest. Every plugin's ``__init__.py`` raises if imported, so a lazy-import bug fails loudly.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

PLUGINS = 200
TARGET_MS = 50.0

_MANIFEST = """name: {name}
version: 1.0.{i}
description: "Benchmark plugin {i}"
author: bench
kind: {kind}
{provides}
requires_env:
  - BENCH_{i}_API_KEY
  - name: BENCH_{i}_URL
    description: "Where the service lives"
    url: "https://example.invalid/{i}"
"""


def generate(root: Path, count: int = PLUGINS) -> list[Path]:
    """``count`` plugins split across ``web/``, ``image_gen/`` and flat folders."""
    manifests = []
    for i in range(count):
        category = ("web", "image_gen", "")[i % 3]
        name = f"bench-{i:03d}"
        folder = root / category / name if category else root / name
        folder.mkdir(parents=True)
        if category == "web":
            provides, kind = f"provides_web_providers: [{name}]", "backend"
        elif category == "image_gen":
            provides, kind = f"provides_image_providers: [{name}]", "backend"
        else:
            provides, kind = f"provides_tools: [{name.replace('-', '_')}_tool]", "standalone"
        manifest = folder / "plugin.yaml"
        manifest.write_text(_MANIFEST.format(name=name, i=i, kind=kind, provides=provides), encoding="utf-8")
        (folder / "__init__.py").write_text(f"raise RuntimeError('plugin {name} was imported')\n")
        manifests.append(manifest)
    return manifests


def _baseline(root: Path) -> None:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    stack = [root]
    while stack:
        for entry in os.scandir(stack.pop()):
            if not entry.is_dir():
                continue
            manifest = os.path.join(entry.path, "plugin.yaml")
            if os.path.exists(manifest):
                with open(manifest, encoding="utf-8") as handle:
                    yaml.load(handle.read(), Loader=loader)
            else:
                stack.append(Path(entry.path))


def _time_pair(
    first: Callable[[], None], second: Callable[[], None], runs: int
) -> tuple[list[float], list[float]]:
    """Alternate the two so that load from other processes hits both alike."""
    a, b = [], []
    for _ in range(runs):
        for func, out in ((first, a), (second, b)):
            start = time.perf_counter()
            func()
            out.append((time.perf_counter() - start) * 1000)
    return a, b


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "hermes_home"
        generate(home / "plugins")
        empty = Path(tmp) / "no-bundled"
        empty.mkdir()
        os.environ["HERMES_HOME"] = str(home)
        os.environ["HERMES_BUNDLED_PLUGINS"] = str(empty)  # measure the 200 plugins alone

        from hermes_nb.plugins import loader

        def discover() -> None:
            loader.PluginManager().discover()

        discover()  # warm imports (yaml, importlib.metadata) once, as a running kernel would have them
        _baseline(home / "plugins")
        ours, base = _time_pair(discover, lambda: _baseline(home / "plugins"), args.runs)
        records = loader.PluginManager().discover()
        imported = [m for m in sys.modules if m.startswith(loader.NAMESPACE + ".")]
        assert len(records) == PLUGINS, len(records)
        assert not imported, f"plugin modules imported during discovery: {imported[:5]}"
        assert all(r.error is None for r in records), [r.error for r in records if r.error][:3]
    med, base_med = statistics.median(ours), statistics.median(base)
    verdict = "meets" if med <= TARGET_MS else "MISSES"
    print(f"discover() of {PLUGINS} plugins: median {med:.1f} ms over {args.runs} runs (min {min(ours):.1f})")
    print(f"baseline scandir + yaml C load of the same files: median {base_med:.1f} ms")
    print(f"ratio {med / base_med:.2f}x; {verdict} the {TARGET_MS:.0f} ms target; plugin modules imported: 0")
    row = [
        f"discovery, {PLUGINS} manifest-only plugins",
        f"{med:.1f} ms median (baseline scandir+yaml {base_med:.1f} ms, {med / base_med:.2f}x)",
        f"target <= {TARGET_MS:.0f} ms: {verdict}; 0 plugin modules imported",
    ]
    print("| " + " | ".join(row) + " |")
    return 0 if med <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
