"""A template's unfilled ``{{ … }}`` expressions are markup: they never reach the extracted text."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.tree import parse_html
from hermes_nb.web.extraction.unfilled import drop_unfilled_expressions

THREADS = [
    ("Clients ghosting after the first invoice", "How do you chase a client who stopped answering?"),
    ("Pricing a retainer for a small agency", "We are moving from hourly work to a monthly retainer."),
    ("Cold email that still works in 2026", "Three templates that got replies, and two that did not."),
]
PAGE = (
    "<html><head><title>Freelancing forum</title></head><body><main><h1>Freelancing</h1>"
    "<p>Questions and answers about running a one-person business, from pricing to contracts.</p>"
    + "".join(
        f"<div class='thread'><h2>{title}</h2><p>{teaser} Replies welcome from anyone who has been there."
        f"</p><p class='votes'>{{{{ upvoteCount | shortNum }}}} votes · {{{{replies}}}} replies</p></div>"
        for title, teaser in THREADS
    )
    + "</main></body></html>"
)


def test_the_pipeline_reads_no_template_syntax_and_says_what_went() -> None:
    doc = convert(PAGE, "text/html", url="https://forum.example/c/freelancing")
    assert "{{" not in doc.content and "upvoteCount" not in doc.content
    for title, teaser in THREADS:
        assert title in doc.content and teaser in doc.content
    assert "votes · replies" in doc.content  # the words around the expressions stay
    assert doc.metadata["unfilled_expressions_dropped"] == 2 * len(THREADS)


def test_expressions_go_from_text_and_tails_and_code_keeps_its_syntax() -> None:
    root = parse_html(
        "<body><p><b>Free</b> shipping over {{threshold_with_currency}} today</p>"
        "<p>Write <code>{{ user.name }}</code> where the name goes.</p>"
        "<pre>Hello, {{ user.name }}!</pre>"
        "<p>The half: \\(\\frac{{1}}{{2}}\\).</p>"
        "<p>Braces {{ }} and one across {{ two\nlines }} and {not doubled}</p></body>"
    )
    assert drop_unfilled_expressions(root) == 2
    assert root.xpath("string(//p[1])") == "Free shipping over  today"
    assert root.xpath("string(//code)") == "{{ user.name }}"
    assert root.xpath("string(//pre)") == "Hello, {{ user.name }}!"
    assert root.xpath("string(//p[3])") == "The half: \\(\\frac{{1}}{{2}}\\)."
    assert root.xpath("string(//p[4])") == "Braces  and one across {{ two\nlines }} and {not doubled}"


def test_a_page_without_templates_is_untouched() -> None:
    root = parse_html("<body><p>A plain page with {single} braces and no template.</p></body>")
    assert drop_unfilled_expressions(root) == 0
    assert root.xpath("string(//p)") == "A plain page with {single} braces and no template."
