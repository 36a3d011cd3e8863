"""``hermes-nb plugins validate PATH``: the checks a plugin author runs before publishing.

The manifest is read against the schema, the plugin's ``import`` lines are read for Hermes names,
then the plugin is imported and registered in a throwaway subprocess (``_validate_worker``) with an
empty ``$HERMES_HOME``, and what it registered is compared with what the manifest declares. Every
problem is one line naming the file and the fix; no problem means exit code 0.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_nb.plugins.hermes_internals import is_hermes_internal
from hermes_nb.plugins.manifest import KINDS, ManifestError, PluginManifest, find_manifest, read_manifest

__all__ = ["ValidationReport", "validate_plugin"]

WORKER_TIMEOUT = 60.0
#: the subprocess starts like a kernel: ``import hermes_nb`` wires the services, then the worker runs
_WORKER = "import hermes_nb; from hermes_nb.plugins._validate_worker import run; raise SystemExit(run())"
_CATEGORIES = ("web", "image_gen")  # a plugin folder inside one of these is keyed <category>/<dir>
#: manifest list → what the plugin registered of that kind (``providers`` rows are ``kind:name``)
_DECLARED = (
    ("provides_tools", "tools", ""),
    ("provides_hooks", "hooks", ""),
    ("provides_web_providers", "providers", "web:"),
)
#: older manifests (Hermes's own general plugins) list hooks under ``hooks:``
_LEGACY_FIELDS = {"provides_hooks": "hooks"}


@dataclass
class ValidationReport:
    """The outcome: ``problems`` (one line each) and what the plugin registered."""

    path: Path
    problems: list[str] = field(default_factory=list)
    registered: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, file: Path | str, message: str) -> None:
        self.problems.append(f"{file}: {message}")


def hermes_imports(directory: Path) -> dict[str, tuple[str, set[str]]]:
    """Hermes modules the plugin's ``.py`` files import: module → (first file, names imported from it)."""
    found: dict[str, tuple[str, set[str]]] = {}
    for file in sorted(directory.rglob("*.py")):
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
        except (OSError, SyntaxError, ValueError):
            continue  # the import step reports a file that cannot be read or parsed
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                pairs = [(alias.name, "") for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                pairs = [(node.module, alias.name) for alias in node.names]
            else:
                continue
            for module, name in pairs:
                if is_hermes_internal(module) and not module.startswith("plugins."):
                    entry = found.setdefault(module, (str(file), set()))
                    if name and name != "*":
                        entry[1].add(name)
    return found


def _check_manifest(report: ValidationReport, directory: Path) -> PluginManifest | None:
    manifest_file = find_manifest(directory)
    if manifest_file is None:
        report.add(directory, "no plugin.yaml; add one with at least `name:` and `version:`")
        return None
    try:
        manifest = read_manifest(manifest_file, source="user", directory=directory)
    except ManifestError as exc:
        report.add(manifest_file, str(exc))
        return None
    import yaml  # PyYAML is a dependency; only the raw kind needs re-reading here

    raw = yaml.safe_load(Path(manifest_file).read_text(encoding="utf-8")) or {}
    if isinstance(raw, dict) and raw.get("kind") not in (None, *KINDS):
        report.add(manifest_file, f"unknown kind {raw.get('kind')!r}; use one of {', '.join(KINDS)}")
    if not manifest.provider_class and not (directory / "__init__.py").is_file():
        report.add(directory, "no __init__.py; add one that defines `def register(ctx): ...`, or name the "
                   "provider class in plugin.yaml (provider_class: provider:MyProvider)")
        return None
    return manifest


def _install(directory: Path, manifest: PluginManifest, home: Path) -> str:
    """Copy the plugin into a fresh ``$HERMES_HOME/plugins`` as a user would and enable it; its key."""
    category = directory.parent.name if directory.parent.name in _CATEGORIES else None
    target = home / "plugins" / (category or "") / directory.name
    shutil.copytree(directory, target, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    key = f"{category}/{directory.name}" if category else manifest.name
    (home / "config.yaml").write_text(json.dumps({"plugins": {"enabled": [key]}}), encoding="utf-8")
    return key


def _run_worker(
    directory: Path, manifest: PluginManifest, imports: dict[str, tuple[str, set[str]]]
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hermes-nb-validate-") as home:
        key = _install(directory, manifest, Path(home))
        env = {**os.environ, "HERMES_HOME": home}  # bundled plugins stay: a real kernel has them too
        request = {"key": key, "imports": {m: sorted(n) for m, (_, n) in imports.items()}}
        proc = subprocess.run(  # our own interpreter and module; the plugin's path travels as data
            [sys.executable, "-c", _WORKER],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=WORKER_TIMEOUT,
            env=env,
            cwd=home,
        )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return {"error": f"the validation subprocess failed: {tail[0]}"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _compare(report: ValidationReport, manifest: PluginManifest, manifest_file: str) -> None:
    import yaml  # PyYAML is a dependency; the legacy ``hooks:`` list is not part of PluginManifest

    raw = yaml.safe_load(Path(manifest_file).read_text(encoding="utf-8")) or {}
    for field_name, kind, prefix in _DECLARED:
        legacy = raw.get(_LEGACY_FIELDS.get(field_name, ""), []) if isinstance(raw, dict) else []
        names = [*getattr(manifest, field_name), *(legacy if isinstance(legacy, list) else [])]
        declared = {str(n).strip().lower() for n in names}
        actual = {n[len(prefix):] for n in report.registered.get(kind, []) if n.startswith(prefix)}
        named = report.registered.get("aliases", []) if prefix else []
        aliases = {n[len(prefix):] for n in named if n.startswith(prefix)}
        if prefix:
            actual, aliases = {n.lower() for n in actual}, {n.lower() for n in aliases}
        for name in sorted(actual - declared):
            report.add(manifest_file, f"register() registers {name!r}; add it to {field_name}")
        refused = set() if prefix else {str(n).lower() for n in report.registered.get("refused_tools", [])}
        for name in sorted(declared - actual - aliases - refused):  # an alias of a provider may be listed
            report.add(manifest_file, f"{field_name} lists {name!r} but register() does not register it; "
                       "remove it or register it")


def validate_plugin(path: Path | str) -> ValidationReport:
    """Validate the plugin folder at ``path`` (a file inside it works too)."""
    directory = Path(path).expanduser().resolve()
    if directory.is_file():
        directory = directory.parent
    report = ValidationReport(directory)
    if not directory.is_dir():
        report.add(directory, "no such folder; pass the plugin's folder (the one holding plugin.yaml)")
        return report
    manifest = _check_manifest(report, directory)
    if manifest is None:
        return report
    imports = hermes_imports(directory)
    init = directory / "__init__.py"
    code = init if init.is_file() else Path(find_manifest(directory) or init)  # what register() runs from
    try:
        result = _run_worker(directory, manifest, imports)
    except subprocess.TimeoutExpired:
        report.add(code, f"import + register() took over {WORKER_TIMEOUT:.0f} s; "
                   "do slow work on first use, not at import")
        return report
    for module, names in sorted(result.get("unserved", {}).items()):
        where = imports.get(module, (str(code), set()))[0]
        shown = ", ".join(f"{module}.{n}" for n in names) if names else module
        report.add(where, f"imports a Hermes internal hermes_nb does not provide: {shown}; "
                   "use the documented plugin API (agent.web_search_provider, agent.image_gen_provider, "
                   "tools.registry, ...) or import it inside a try")
    if result.get("error"):
        report.add(code, result["error"])
        return report
    report.registered = result.get("registered", {})
    _compare(report, manifest, find_manifest(directory) or str(directory))
    for problem in result.get("tool_problems", []):
        report.add(code, problem)
    return report
