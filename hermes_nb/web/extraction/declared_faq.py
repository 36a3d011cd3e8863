"""Questions and answers a page declares as a schema.org ``FAQPage`` and shows: kept in the reading.

A page's FAQ is often an accordion: each question a button, each answer a collapsed panel. The
extractors drop the buttons as controls and, on many pages, the collapsed panels with them, so an
article came back without the five questions and answers that close it. The same page usually states
its FAQ as structured data (a ``FAQPage`` whose ``mainEntity`` lists each ``Question`` with its
``acceptedAnswer``), which says exactly which text is a question and which its answer.

A declared pair counts only when the page shows it: the question and the answer's opening words are
in the page's text outside scripts (a collapsed panel counts; a pair only in the structured data
does not: search engines read those, people do not). Such a pair the reading lost is put back: a
question whose answer the reading kept goes before the answer as a heading (``faq_labels``, put
back with the other lost titles); an answer whose question the reading kept as a line goes after
it; a pair the reading lost whole goes after the reading, in the page's order.

On the tune part of WCXB: 0.8881 → 0.8886 F1, both halves up (+0.0004, +0.0007); 9 pages up
(articles closing on an FAQ, a product's questions: +0.21), 2 down by 0.011 at most (references that
leave a shown FAQ out). Readability's test pages declare none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .html_markdown import fragment_to_markdown, parse_fragment
from .lines import BODY_WORDS, compact, line_keys
from .lost_labels import Label
from .markdown_escapes import escaped, escaped_block_start
from .metadata import STRUCTURED_MARKUP, ld_types, structured_text
from .scripts import split_words, word_key
from .tree import visible_text

__all__ = ["Answered", "faq_labels", "page_faq", "restore_faq"]

#: Words of an answer that must show on the page for its pair to count (all of a shorter answer).
SHOWN_WORDS = 12
#: The heading level a put-back question gets (a page's sections are its ``h2``s).
QUESTION_LEVEL = 3


@dataclass(frozen=True)
class Answered:
    """A declared question, its answer as Markdown, and the word key of the answer's opening words."""

    question: str
    answer: str
    opening: str


def page_faq(root: Any, faq_pages: list[dict[str, Any]]) -> list[Answered]:
    """The question-and-answer pairs the page declares in a ``FAQPage`` and shows, in its order;
    ``faq_pages``: the page's ``FAQPage`` objects, as ``metadata.page_metadata`` read them
    (``json_ld_faq``)."""
    declared = list(_declared(faq_pages))
    if not declared:
        return []
    shown = compact(word_key(visible_text(root)))
    found: list[Answered] = []
    for question, answer in declared:
        answer_words = split_words(structured_text(answer))
        opening = " ".join(answer_words[:SHOWN_WORDS])
        if compact(word_key(question)) in shown and compact(word_key(opening)) in shown:
            found.append(Answered(question, _markdown(answer), word_key(" ".join(answer_words[:BODY_WORDS]))))
    return list(dict.fromkeys(found))


def faq_labels(faq: list[Answered]) -> list[Label]:
    """Each question as the title of its answer, for ``lost_labels.restore_labels``."""
    return [Label(pair.question, QUESTION_LEVEL, pair.opening) for pair in faq]


def restore_faq(markdown: str, faq: list[Answered]) -> tuple[str, int]:
    """``markdown`` with each declared pair whose answer it lacks put back; how many were.

    The answer goes after its question when the reading has the question as a line, else the pair
    goes after the reading. An empty reading stays empty (the page is read another way).
    """
    if not faq or not markdown.strip():
        return markdown, 0
    lines = markdown.split("\n")
    keys = [compact(key) for key in line_keys(lines)]
    said = "".join(keys)
    after: dict[int, list[str]] = {}
    appended: list[str] = []
    for pair in faq:
        if compact(pair.opening) in said:
            continue
        question = compact(word_key(pair.question))
        at = next((i for i, key in enumerate(keys) if key and key == question), None)
        if at is None:
            appended.append(f"{'#' * QUESTION_LEVEL} {escaped(pair.question)}\n\n{pair.answer}")
        else:
            after.setdefault(at, []).append(pair.answer)
    restored = len(appended) + sum(len(answers) for answers in after.values())
    if not restored:
        return markdown, 0
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        for answer in after.get(i, ()):
            out.extend(("", answer, ""))
    text = "\n\n".join(["\n".join(out).strip(), *appended])
    return re.sub(r"\n{3,}", "\n\n", text), restored


def _declared(faq_pages: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(question, answer) of every ``Question`` in the page's ``FAQPage`` objects."""
    for page in faq_pages:
        yield from _questions(page.get("mainEntity"))


def _questions(entity: Any) -> Iterator[tuple[str, str]]:
    for item in entity if isinstance(entity, list) else [entity]:
        if not isinstance(item, dict) or "Question" not in ld_types(item):
            continue
        answer = item.get("acceptedAnswer") or item.get("suggestedAnswer")
        if isinstance(answer, list):
            answer = answer[0] if answer else None
        question = structured_text(item.get("name"))
        text = answer.get("text") if isinstance(answer, dict) else None
        if question and isinstance(text, str) and structured_text(text):
            yield question, text


def _markdown(answer: str) -> str:
    """An answer's text as Markdown: its markup's paragraphs and lists when it has markup."""
    if STRUCTURED_MARKUP.search(answer):
        fragment = parse_fragment(answer)
        text = fragment_to_markdown(fragment) if fragment is not None else ""
        if text:
            return text
    return escaped_block_start(escaped(structured_text(answer)))
