"""The FAQ a page declares as a schema.org FAQPage and shows: lost questions and answers come back."""

from __future__ import annotations

import json
from typing import Any

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.declared_faq import Answered, faq_labels, page_faq, restore_faq
from hermes_nb.web.extraction.document import Document
from hermes_nb.web.extraction.lost_labels import Label
from hermes_nb.web.extraction.metadata import page_metadata
from hermes_nb.web.extraction.scripts import word_key
from hermes_nb.web.extraction.tree import parse_html

PAIRS = [
    (
        "How long does delivery take?",
        "Orders placed before noon leave our warehouse the same day and arrive within three working days.",
    ),
    (
        "Can I return an item?",
        "Every item can be returned within thirty days of delivery for a full refund, no questions asked.",
    ),
    (
        "Which countries do you ship to?",
        "We ship to every country in the European Union and to the United Kingdom, Norway and Switzerland.",
    ),
]


def _faq_page(pairs: list[tuple[str, str]], *, extra: list[Any] | None = None) -> dict[str, Any]:
    return {
        "@context": "https://schema.org",
        "@type": "FAQPage",
        "mainEntity": [
            {"@type": "Question", "name": q, "acceptedAnswer": {"@type": "Answer", "text": a}}
            for q, a in pairs
        ]
        + (extra or []),
    }


def _ld(data: Any) -> str:
    return f"<script type='application/ld+json'>{json.dumps(data)}</script>"


def _accordion(pairs: list[tuple[str, str]]) -> str:
    # Questions as buttons without aria-controls, answers in collapsed panels: what extractors drop.
    return "".join(
        f"<div class='faq-item'><button class='faq-toggle'>{q}</button>"
        f"<div class='faq-answer' style='display:none'><p>{a}</p></div></div>"
        for q, a in pairs
    )


def _page_faq(html: str) -> list[Answered]:
    """The declared pairs of ``html``, from the FAQ pages its metadata read (as the pipeline does)."""
    root = parse_html(html)
    return page_faq(root, page_metadata(root, None).get("json_ld_faq") or [])


def test_page_faq_reads_the_declared_pairs_the_page_shows_in_order() -> None:
    unshown = ("Is this question only for search engines?", "Yes: it is in the structured data alone.")
    qa_page = {"@type": "QAPage", "mainEntity": {"@type": "Question", "name": "Not an FAQ?"}}
    graph = {"@graph": [{"@type": "WebPage"}, _faq_page(PAIRS[:2] + [unshown])]}
    html = (
        f"<html><head>{_ld(graph)}{_ld(qa_page)}<script>var faq = 'Is this question only for search "
        f"engines? Yes: it is in the structured data alone.'</script></head>"
        f"<body>{_accordion(PAIRS[:2])}</body></html>"
    )
    faq = _page_faq(html)
    assert [pair.question for pair in faq] == [PAIRS[0][0], PAIRS[1][0]]
    assert faq[0] == Answered(PAIRS[0][0], PAIRS[0][1], "orders placed before noon leave our")
    assert faq_labels(faq)[1] == Label(PAIRS[1][0], 3, "every item can be returned within")


def test_an_answer_written_in_markup_reads_as_markdown() -> None:
    answer = (
        "<p>Three ways to pay:</p><ul><li>By card at checkout</li><li>By bank transfer within a week"
        "</li></ul>"
    )
    question = {"@type": "Question", "name": "How can I pay?", "acceptedAnswer": {"text": answer}}
    single = {"@type": "FAQPage", "mainEntity": question}  # one question, not a list
    html = (
        f"<html><head>{_ld(single)}</head><body><h3>How can I pay?</h3><p>Three ways to pay:</p><ul><li>By "
        "card at checkout</li><li>By bank transfer within a week</li></ul></body></html>"
    )
    (pair,) = _page_faq(html)
    assert pair.answer == "Three ways to pay:\n\n- By card at checkout\n- By bank transfer within a week"


def test_a_lost_answer_goes_after_its_question_and_a_lost_pair_after_the_reading() -> None:
    faq = [Answered(q, a, word_key(" ".join(a.split()[:6]))) for q, a in PAIRS]
    reading = (
        "## Delivery\n\n### How long does delivery take?\n\nAll about shipping.\n\n"
        f"### Can I return an item?\n\n{PAIRS[1][1]}"
    )
    text, restored = restore_faq(reading, faq)
    assert restored == 2  # the second answer was read already
    assert text == (
        f"## Delivery\n\n### How long does delivery take?\n\n{PAIRS[0][1]}\n\nAll about shipping.\n\n"
        f"### Can I return an item?\n\n{PAIRS[1][1]}\n\n### {PAIRS[2][0]}\n\n{PAIRS[2][1]}"
    )
    assert restore_faq(text, faq) == (text, 0)
    assert restore_faq(reading, []) == (reading, 0)
    assert restore_faq("", faq) == ("", 0)


def test_an_article_closing_on_a_collapsed_faq_keeps_its_questions_and_answers() -> None:
    doc = _guide(f"<section class='faq'><h2>FAQ</h2>{_accordion(PAIRS)}</section>")
    assert doc.metadata["faq_answers_restored"] == 3
    assert "json_ld_faq" not in doc.metadata  # read for the FAQ step only, not the page's metadata
    for question, answer in PAIRS:
        assert f"### {question}\n\n{answer}" in doc.content
    assert doc.content.index("Paragraph 7") < doc.content.index(PAIRS[0][0])


def test_a_faq_only_in_the_structured_data_stays_out() -> None:
    doc = _guide("")
    assert "faq_answers_restored" not in doc.metadata
    assert PAIRS[0][1] not in doc.content


def _guide(after: str) -> Document:
    """An article of eight paragraphs declaring ``PAIRS`` as its FAQ, ``after`` it, read as Markdown."""
    article = "".join(
        f"<p>Paragraph {i} of the guide explains one more step of packing an order so that it arrives "
        "safely, with the materials, the labels and the checks our warehouse team uses every day.</p>"
        for i in range(8)
    )
    page = (
        f"<html><head><title>Packing guide</title>{_ld(_faq_page(PAIRS))}</head><body><article>"
        f"<h1>Packing guide</h1>{article}</article>{after}</body></html>"
    )
    return convert(page, "text/html; charset=utf-8", url="https://shop.example/guide", format="markdown")
