"""The readable form of one fetched resource: title, Markdown content and metadata."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Document:
    """The readable form of one fetched resource."""

    title: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
