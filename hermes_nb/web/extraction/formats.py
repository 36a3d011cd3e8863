"""Output formats of an extraction, all derived from the one stored form, its Markdown.

- ``markdown`` (the default): as extracted.
- ``text``: plain text for RAG pipelines and benchmarks — headings on their own lines, paragraphs
  (and list items, table rows, code blocks) separated by blank lines, a line break inside a paragraph
  kept, no Markdown marks, links and images as their text (a line that is only images left out: a
  figure is no line of text).
- ``html``: the cleaned main-content HTML (``<h1>``…, ``<p>``, lists, tables, ``<pre><code>``),
  rendered from the Markdown with raw HTML escaped, never passed through; a newline inside a
  paragraph is a ``<br />`` (the extractors end lines that way; they never wrap a paragraph).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from html import escape
from typing import TYPE_CHECKING

from hermes_nb.code_fences import CodeFences
from hermes_nb.markdown_heading import HEADING

from .formulas import FORMULA

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

FORMATS = ("markdown", "text", "html")
DEFAULT_FORMAT = "markdown"

LIST_MARKER = r"(?:[-*+]|\d+[.)])"  # a list item's marker: a bullet, or a number and its dot or parenthesis
LIST_ITEM = re.compile(rf"^\s*{LIST_MARKER}\s+")  # a list item's indent and marker
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_RULE = re.compile(r"^\s{0,3}(?:[-*_]\s*){3,}$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_IMAGE_SOURCE = r"!\[((?:\\.|[^\]\\])*)\]\([^)]*\)"  # an image: its words (escapes kept) and its target
_IMAGE = re.compile(_IMAGE_SOURCE)
_IMAGE_LINE = re.compile(rf"^(?:{_IMAGE_SOURCE}\s*)+$")  # a line that is only images: a figure, no text
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)")
_EMPHASIS = re.compile(r"(\*{1,3})(?=\S)(.+?)(?<=\S)\1|(?<!\w)(_{1,3})(?=\S)(.+?)(?<=\S)\3(?!\w)")
_STRIKETHROUGH = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")  # trafilatura's <del> and <s>: plain text has no line
_CODE_SPAN = re.compile(r"`+([^`]*)`+")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~&])")
#: An escaped character held out of the emphasis and link rules (``\*args, \*\*kw`` is no emphasis).
_HELD = re.compile("\ue010(\\d+)\ue011")
#: The inline HTML trafilatura's Markdown keeps (no Markdown syntax for them).
_INLINE_TAG = re.compile(r"<(/?)(sup|sub|u)>")
_HELD_FORMULA = re.compile("\ue002(\\d+)\ue003")


def check_format(value: str | None) -> str:
    """The format name, or ``ValueError`` listing the valid ones."""
    name = (value or DEFAULT_FORMAT).strip().lower()
    if name not in FORMATS:
        raise ValueError(f"unknown format {value!r}: use one of {', '.join(FORMATS)}")
    return name


def render(markdown: str, fmt: str) -> str:
    """``markdown`` in ``fmt`` (one of ``FORMATS``)."""
    fmt = check_format(fmt)
    if fmt == "text":
        return markdown_to_text(markdown)
    if fmt == "html":
        return markdown_to_html(markdown)
    return markdown


def markdown_to_text(markdown: str) -> str:
    """Plain text: one block per paragraph, heading, list item or table row, blank lines between."""
    out: list[str] = []
    para: list[str] = []
    code: list[str] = []  # the lines of the open code block
    fences = CodeFences()

    def flush() -> None:
        if para:
            out.append("\n".join(para))
            para.clear()

    for line in markdown.replace("\r\n", "\n").split("\n"):
        inside = fences.in_code
        if fences.read(line):
            if not inside:  # the opening fence
                flush()
                code = []
            elif fences.in_code:
                code.append(line)
            elif any(c.strip() for c in code):  # the closing fence
                out.append("\n".join(code).strip("\n"))
            continue
        stripped = line.strip()
        blank = not stripped or not _QUOTE.sub("", stripped)  # a quotation's blank line (">") too
        figures = stripped.startswith("![") and _IMAGE_LINE.match(stripped)  # a line of images only
        if blank or figures or _RULE.match(stripped) or _TABLE_RULE.match(stripped):
            flush()
            continue
        heading = HEADING.match(line)
        if heading:
            flush()
            out.append(_inline(heading.group(1)))
            continue
        if stripped.startswith("|"):
            flush()
            cells = [_inline(c.strip()) for c in re.split(r"(?<!\\)\|", stripped.strip("|"))]
            row = "  ".join(c for c in cells if c)
            if row:
                out.append(row)
            continue
        body = _QUOTE.sub("", line)
        if LIST_ITEM.match(body):
            flush()
            item = LIST_ITEM.sub("", body)
            heading = HEADING.match(item)  # a list item that is a heading ("- ### Title")
            out.append(_inline(heading.group(1) if heading else item))
            continue
        para.append(_inline(body.strip()))
    if fences.in_code and any(c.strip() for c in code):
        out.append("\n".join(code).strip("\n"))
    flush()
    return "\n\n".join(block for block in out if block.strip())


def _inline(text: str) -> str:
    text = _INLINE_TAG.sub("", text)  # x<sup>2</sup>: "x2"
    held: list[str] = []

    def hold(match: re.Match[str]) -> str:
        held.append(match.group(match.lastindex or 0))  # an escaped character, or a formula whole
        return f"\ue010{len(held) - 1}\ue011"

    text = FORMULA.sub(hold, text)  # TeX as it is: ``a_{ij}`` or ``\\`` are no Markdown
    text = _ESCAPE.sub(hold, text)
    text = linked_text(text)
    text = _CODE_SPAN.sub(r"\1", text)
    text = _EMPHASIS.sub(lambda m: m.group(2) if m.group(1) else m.group(4), text)
    text = _STRIKETHROUGH.sub(r"\1", text)
    text = _HELD.sub(lambda m: held[int(m.group(1))], text)
    return re.sub(r"[ \t]+", " ", text).strip()


def linked_text(text: str) -> str:
    """Markdown ``text`` with its images and links as their text (the words a reader sees, not the
    targets; a target may hold parentheses, as Wikipedia's do)."""
    if "](" not in text:  # most lines hold no link: no regex to run
        return text
    return _LINK.sub(r"\1", _IMAGE.sub(r"\1", text))


def markdown_to_html(markdown: str, adjust: Callable[[list[Token]], None] | None = None) -> str:
    """HTML of the Markdown (CommonMark plus tables and ``~~struck~~`` text); raw HTML in it is
    escaped. ``adjust`` may change the parsed tokens before they are rendered (the notebook's cards
    style them)."""
    # <sup>, <sub> and <u> survive as tags (through placeholders); every other tag is escaped.
    kept = [f"<{close}{name}>" for name in ("sup", "sub", "u") for close in ("", "/")]
    for i, tag in enumerate(kept):
        markdown = markdown.replace(tag, f"\ue000{i}\ue001")
    # Formulas as their TeX, untouched by the Markdown rules, in a span a page's MathJax can typeset.
    formulas: list[str] = []

    def hold(match: re.Match[str]) -> str:
        formulas.append(match.group(0))
        return f"\ue002{len(formulas) - 1}\ue003"

    markdown = FORMULA.sub(hold, markdown)
    renderer = _renderer()
    tokens = renderer.parse(markdown)
    _mark_countdowns(tokens)
    if adjust is not None:
        adjust(tokens)
    html = str(renderer.renderer.render(tokens, renderer.options, {})).strip()
    for i, tag in enumerate(kept):
        html = html.replace(f"\ue000{i}\ue001", tag)
    return _HELD_FORMULA.sub(
        lambda m: f'<span class="math">{escape(formulas[int(m.group(1))], quote=False)}</span>', html
    )


def _mark_countdowns(tokens: list[Token]) -> None:
    """Mark ``reversed`` each ordered list whose items are numbered down by one ("3. 2. 1.", as
    ``list_numbers.py`` writes a page's ``<ol reversed>``): CommonMark would show them 3, 4, 5."""
    open_lists: list[tuple[Token, list[int]]] = []  # each ordered list open here, with its items' numbers
    for token in tokens:
        if token.type == "ordered_list_open":
            open_lists.append((token, []))
        elif token.type == "list_item_open" and open_lists and token.level == open_lists[-1][0].level + 1:
            if token.info.isdigit():
                open_lists[-1][1].append(int(token.info))
        elif token.type == "ordered_list_close" and open_lists:
            opening, numbers = open_lists.pop()
            if len(numbers) > 1 and all(b == a - 1 for a, b in zip(numbers, numbers[1:], strict=False)):
                opening.attrSet("reversed", "")
                opening.attrSet("start", numbers[0])  # always: a countdown ending at 0 starts at 1


@cache
def _renderer() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])
