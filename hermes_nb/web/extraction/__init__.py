"""HTML extraction for the ``direct`` provider: several candidates on one parsed tree, chosen and scored."""

from __future__ import annotations

from .document import Document
from .pipeline import html_converter_ready, html_signals, html_to_markdown, missing_package, visible_text_of

__all__ = [
    "Document",
    "html_converter_ready",
    "html_signals",
    "html_to_markdown",
    "missing_package",
    "visible_text_of",
]
