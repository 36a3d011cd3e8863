"""Definition lists of inline terms and values, read as "term: value" lines.

A product's specifications, a school's figures and a glossary are often ``<dl>`` lists of
``<dt>`` terms and ``<dd>`` values. The extractors wrote each term and each value as a bullet of its
own ("- Weight", "- 2 kg", "- Colour", "- Grey"), so which value belongs to which term was left to
the reader, and a RAG chunk could hold a value without its term. A list whose terms and values are
inline text (no blocks inside), each term with a value, is re-tagged before the extractors read it:
one item per term, the term in bold, its values after a colon ("- **Weight**: 2 kg"). Lists whose
values hold paragraphs, lists, tables or code (an API reference's entries) stay the blocks they are.
"""

from __future__ import annotations

from typing import Any

from .tree import BLOCK_TAGS, squash

_MARKS = ("b", "strong")


def pair_definitions(root: Any) -> int:
    """Re-tag each ``<dl>`` of inline terms and values as a ``<ul>`` of "term: value" items; how many."""
    changed = 0
    for dl in list(root.iter("dl")):
        groups = _groups(dl)
        if groups is None:
            continue
        for child in list(dl):
            dl.remove(child)
        dl.tag = "ul"
        for terms, values in groups:
            dl.append(_item(dl, terms, values))
        changed += 1
    return changed


def _groups(dl: Any) -> list[tuple[list[Any], list[Any]]] | None:
    """The list's (terms, values) groups in order, or ``None`` when it is not one of short values."""
    entries: list[Any] = []
    for child in dl:
        if not isinstance(child.tag, str):
            continue  # a comment or processing instruction
        if child.tag == "div":  # HTML allows a <div> round each term and its values
            entries.extend(c for c in child if isinstance(c.tag, str))
        else:
            entries.append(child)
    if not entries or any(e.tag not in ("dt", "dd") for e in entries):
        return None
    if any(d.tag in BLOCK_TAGS for e in entries for d in e.iterdescendants()):
        return None
    groups: list[tuple[list[Any], list[Any]]] = []
    for entry in entries:
        if entry.tag == "dt" and (not groups or groups[-1][1]):
            groups.append(([entry], []))
        elif entry.tag == "dt":
            groups[-1][0].append(entry)
        elif not groups:
            groups.append(([], [entry]))
        else:
            groups[-1][1].append(entry)
    # Every term with a value, every value with a term: a list of pairs, not a list of labels.
    if any(not terms or not any(_text(v) for v in values) for terms, values in groups):
        return None
    return groups


def _text(el: Any) -> str:
    return squash(el.text_content())


def _item(dl: Any, terms: list[Any], values: list[Any]) -> Any:
    labelled = _text(terms[-1]).endswith((":", "\uff1a"))  # "Weight:" needs no colon of ours
    item = dl.makeelement("li", {})
    term = item
    if not any(el.tag in _MARKS for t in terms for el in t.iter()):
        term = item.makeelement("b", {})
        item.append(term)
    for n, dt in enumerate(terms):
        _move_content(dt, term, " / " if n else "")
    for n, dd in enumerate(v for v in values if _text(v)):
        _move_content(dd, item, "; " if n else (" " if labelled else ": "))
    return item


def _move_content(source: Any, target: Any, before: str) -> None:
    """Append ``source``'s text and children to ``target``, after ``before``."""
    text = before + (source.text or "").lstrip()
    if len(target):
        last = target[-1]
        last.tail = (last.tail or "") + text
    else:
        target.text = (target.text or "") + text
    for child in list(source):
        target.append(child)
    if len(target):
        target[-1].tail = (target[-1].tail or "").rstrip()
    else:
        target.text = (target.text or "").rstrip()
