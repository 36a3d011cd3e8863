"""Preformatted blocks (``<pre>``) as code blocks the extractors keep whole, line breaks and all.

trafilatura reads a ``<pre>`` as code only when it carries ``lang``, sits in a ``highlight`` block
or holds a single ``<code>`` and nothing else, and as a code block (not a code span) only when its
text holds a line break; any other ``<pre>`` it reads as a quotation flattened to one line. Sphinx's
listings (``<pre><span>…``: the Python documentation) and code blocks that draw a ``<div>`` per line
(Stripe's, Astro's) came out as a paragraph of run-together code with Markdown escapes in it, and a
one-line command as a code span. Before the extractors read the page, each outermost ``<pre>`` is
rewritten as ``<pre><code>text</code></pre>``, its text as a reader sees it, ending in a line break:
a line per line element (``<div>``, ``<p>``, ``<li>``, ``<tr>``, or a span a highlighter names a
line and writes no break after: Gatsby's highlighted lines, some Shiki builds' ``line``) or
``<br>``, highlighting spans and copy buttons gone; a listing framed by a one-row table, with or
without a line-number gutter (Hugo's, Pygments' and WordPress's WP-Syntax listings), is its code
alone. On the tune part of WCXB the readings held 959 code blocks where they held 677 (documentation
pages 478 → 741, of 872 ``<pre>`` tags; the Python documentation's pages 0 → 21 and 3 → 24, the Arch
wiki's 1 → 73 and 3 → 63), at the same word F1 (+0.0001); with the gutters gone,
``bench_extract_markdown.py`` finds all the listings the tune readings hold rendered as code.

A listing's language, where the page names it (``language-python``, ``lang-js``, Sphinx's
``highlight-bash``, GitHub's ``highlight-source-shell``, pandoc's ``sourceCode r``, ``brush: js``,
``data-lang``), rides through the extractors as a marker line at the top of its code and
``restore_code_languages`` puts it on the opening fence (```` ```python ````), where a notebook
highlights the code by it.
"""

from __future__ import annotations

import re
from typing import Any

_LINE_TAGS = {"div", "p", "li", "tr"}
#: A span a highlighter draws as a line of its own (``display: block``), leaving out the line break
#: between two of them: Gatsby's highlighted lines (``gatsby-highlight-code-line``), Prism's and
#: Docusaurus' ``token-line``, a ``code-line``, a ``line``. Not ``line-numbers``, ``lines`` or ``hll``.
_LINE_CLASS = re.compile(r"(?:^|\s)(?:[\w-]*[-_])?line(?:$|\s)", re.I)
_LINE_NUMBERS = re.compile(r"[\d\s]+")
_SKIPPED = {"script", "style", "template", "button"}  # a "Copy" button inside a listing is not code
#: What lxml will not set as text (a terminal's escape codes in a pasted log): the HTML parser keeps it.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: A language a class names: ``language-x``, ``lang-x``, ``highlight-x``, ``highlight-source-x``,
#: ``brush: x``.
_LANGUAGE_CLASS = re.compile(
    r"(?:^|\s)(?:(?:language|lang|highlight-source|highlight)-([a-z0-9][\w+#.-]{0,20})"
    r"|brush:\s*([a-z0-9][\w+#.]{0,20}))",
    re.I,
)
_LANGUAGE_NAME = re.compile(r"[a-z0-9][\w+#.-]{0,20}")
#: Class and attribute values that name no language.
_NO_LANGUAGE = {
    "default", "none", "text", "plain", "plaintext", "nohighlight", "notranslate", "source", "txt"
}
#: The marker line a listing's language rides in until ``restore_code_languages`` moves it to the fence.
_MARKER = "\u27e6code {}\u27e7"
_MARKER_LINE = re.compile(
    "^(?P<fence>[ ]{0,3}(?:`{3,}|~{3,}))[ \t]*\n\u27e6code (?P<lang>[^\u27e7\\s]+)\u27e7\n", re.M
)
_STRAY_MARKER = re.compile("\u27e6code [^\u27e7\\s]+\u27e7\n?")


def rewrite_preformatted(root: Any) -> int:
    """Rewrite each outermost ``<pre>`` below ``root`` as one ``<code>`` of its shown text, a listing
    with a line-number gutter as its code alone; how many."""
    _gutters_dropped(root)
    rewritten = 0
    for pre in list(root.iter("pre")):
        if any(a.tag == "pre" for a in pre.iterancestors()):
            continue
        parts: list[str] = []
        _shown(pre, parts, top=True)
        text = _NOT_XML.sub("", "".join(parts)).strip("\n")
        if not text.strip():
            continue
        text += "\n"  # a code block, not a code span: trafilatura tells them apart by a line break
        language = _language(pre)
        if language:
            text = _MARKER.format(language) + "\n" + text
        tail = pre.tail
        for child in list(pre):
            pre.remove(child)
        pre.text = None
        code = pre.makeelement("code", {})
        code.text = text
        pre.append(code)
        pre.tail = tail
        rewritten += 1
    return rewritten


def restore_code_languages(markdown: str) -> str:
    """``markdown`` with each listing's language on its opening fence, and no marker left elsewhere
    (a reading that wrote the code as a paragraph)."""
    if "\u27e6code " not in markdown:
        return markdown
    markdown = _MARKER_LINE.sub(lambda m: f"{m['fence']}{m['lang']}\n", markdown)
    return _STRAY_MARKER.sub("", markdown)


def _language(pre: Any) -> str:
    """The language the page names for a listing: on the ``<pre>``, its ``<code>`` or the two
    elements round it (Sphinx's and GitHub's wrappers), as a class or a ``data-lang``. (``lang`` is
    the language of a text, not of code.)"""
    code = pre.find("code")
    near = [pre, *(code,) * (code is not None), *list(pre.iterancestors())[:2]]
    for el in near:
        for attribute in ("data-lang", "data-language"):
            value = (el.get(attribute) or "").strip().lower()
            if value not in _NO_LANGUAGE and _LANGUAGE_NAME.fullmatch(value):
                return value
        classes = el.get("class") or ""
        for match in _LANGUAGE_CLASS.finditer(classes):
            value = (match.group(1) or match.group(2)).lower()
            if value not in _NO_LANGUAGE:
                return value
        names = classes.split()
        if "sourceCode" in names:  # pandoc: class="sourceCode python"
            others = [name.lower() for name in names if name != "sourceCode"]
            others = [name for name in others if name not in _NO_LANGUAGE and _LANGUAGE_NAME.fullmatch(name)]
            if others:
                return others[0]
    return ""


def _gutters_dropped(root: Any) -> None:
    """Replace each one-row table that only frames a listing (a ``<pre>`` of code, maybe one of line
    numbers beside it: Hugo's, Pygments' and WP-Syntax's listings) with the code's ``<pre>``."""
    tables: dict[Any, None] = {}  # the tables round a <pre>, in document order, each once
    for pre in root.iter("pre"):
        table = next(pre.iterancestors("table"), None)
        if table is not None:
            tables.setdefault(table)
    for table in tables:
        rows = table.xpath("./tr|./*/tr")
        if len(rows) != 1 or table.getparent() is None:
            continue
        cells = [cell for cell in rows[0] if isinstance(cell.tag, str)]
        pres = [cell.find(".//pre") for cell in cells]
        # Each cell only frames its <pre>: a gutter of line numbers, or the code.
        framed = zip(pres, cells, strict=True)
        if not pres or any(pre is None or _squashed(pre) != _squashed(cell) for pre, cell in framed):
            continue
        code = [pre for pre in pres if not _LINE_NUMBERS.fullmatch(pre.text_content())]
        if len(code) == 1:
            code[0].tail = table.tail
            table.getparent().replace(table, code[0])


def _squashed(el: Any) -> str:
    return "".join(el.text_content().split())


def _shown(el: Any, parts: list[str], *, top: bool = False) -> None:
    """Append the text of ``el`` (not its tail) as a reader sees it to ``parts``."""
    tag = el.tag if isinstance(el.tag, str) else ""
    if not tag or tag in _SKIPPED:  # comments, processing instructions, scripts
        return
    if tag == "br":
        parts.append("\n")
        return
    line = tag in _LINE_TAGS and not top
    # A line span is a line where the markup writes no break after it (where it does, the span is
    # drawn inline and the source's break ends the line, as in Shiki's listings).
    span_line = tag == "span" and _LINE_CLASS.search(el.get("class") or "") is not None
    if span_line and not (el.tail or "").startswith("\n"):
        line = True
    if line:
        _new_line(parts)
    if el.text:
        parts.append(el.text)
    for child in el:
        _shown(child, parts)
        if child.tail:
            parts.append(child.tail)
    if line:
        _new_line(parts)


def _new_line(parts: list[str]) -> None:
    if parts and not parts[-1].endswith("\n"):
        parts.append("\n")
