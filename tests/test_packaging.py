"""The wheel ships the bundled plugins, and a non-editable install discovers them."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_ships_and_discovers_bundled_plugins(tmp_path: Path) -> None:
    # Offline with the build backend of this environment when it has one; else pip fetches it.
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", *isolation, "-q", "-w", str(dist)],
        check=True,
        timeout=180,
    )
    (wheel,) = dist.glob("hermes_nb-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    manifests = sorted(p.relative_to(REPO / "plugins") for p in (REPO / "plugins").glob("**/plugin.y*ml"))
    bundled = [m.parent for m in manifests]
    assert bundled, "the repository has bundled plugins"
    for manifest in manifests:
        assert f"hermes_nb/bundled_plugins/{manifest.as_posix()}" in names
        fields = yaml.safe_load((REPO / "plugins" / manifest).read_text(encoding="utf-8"))
        declared = fields.get("provider_class")
        code = f"{declared.partition(':')[0].replace('.', '/')}.py" if declared else "__init__.py"
        assert f"hermes_nb/bundled_plugins/{manifest.parent.as_posix()}/{code}" in names
    assert any(n.endswith("entry_points.txt") and "hermes_nb-" in n for n in names)

    # A fresh venv; the dependencies come from this environment through a .pth line (no downloads),
    # but not the editable install of the repository (.pth files of that folder are not processed).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
        ).strip()
    )
    (site / "_dev_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            str(wheel),
        ],
        check=True,
        timeout=120,
    )
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON"))}
    env["HERMES_HOME"] = str(home)
    where = subprocess.run(
        [str(python), "-c", "import hermes_nb.plugins.loader as l; print(l.bundled_plugins_dir())"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.strip()
    assert where == str(site / "hermes_nb" / "bundled_plugins")
    listing = subprocess.run(
        [str(venv / "bin" / "hermes-nb"), "plugins", "list"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listing.returncode == 0, listing.stderr
    from hermes_nb.plugins.manifest import find_manifest, read_manifest

    rows = {line.split()[0]: line for line in listing.stdout.splitlines() if line.strip()}
    for rel in bundled:
        folder = REPO / "plugins" / rel
        manifest_file = find_manifest(folder)
        assert manifest_file is not None
        key = rel.as_posix() if len(rel.parts) > 1 else read_manifest(manifest_file).name
        assert key in rows, (key, listing.stdout)
        assert rows[key].split()[1] == "bundled" and "error:" not in rows[key], rows[key]
