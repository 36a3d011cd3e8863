"""The vendors' own OpenAPI documents, read from outside the repository (never copied into it).

``shared/reference/openapi/`` beside the checkout, else the workplace's copy; tests that need them
skip with ``SKIP_REASON`` when neither is there.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml
from paths import REPO

_BESIDE_REPO = REPO.parent / "shared" / "reference" / "openapi"
_WORKPLACE = Path("/work/shared/reference/openapi")
SPEC_DIR = next((p for p in (_BESIDE_REPO, _WORKPLACE) if (p / "openai.yaml").is_file()), None)
SKIP_REASON = f"the vendors' OpenAPI documents are not at {_BESIDE_REPO} or {_WORKPLACE}"

__all__ = ["SPEC_DIR", "SKIP_REASON", "document"]


@functools.cache
def document(name: str) -> dict[str, Any]:
    """The parsed ``<name>.yaml`` (``openai``, ``exa``); callers copy before changing it."""
    assert SPEC_DIR is not None, SKIP_REASON
    with (SPEC_DIR / f"{name}.yaml").open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
