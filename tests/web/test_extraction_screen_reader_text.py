"""An icon button's screen-reader name is a control's name, not text the page shows."""

from __future__ import annotations

import gzip

import pytest
from paths import benchmark

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.screen_reader_text import drop_screen_reader_text
from hermes_nb.web.extraction.tree import parse_html

EVENTS = [
    ("Harbour data summit", "Two days of talks on tide gauges, sensor networks and open coastal data."),
    ("Rust in embedded systems", "A workshop on writing firmware for small boards without an allocator."),
    ("Notebook reproducibility clinic", "Bring a notebook that fails in CI and leave with one that passes."),
]


def _card(title: str, blurb: str) -> str:
    return (
        f'<article class="event-card"><h3><a href="/e/{len(title)}">{title}</a></h3><p>{blurb}</p>'
        f'<button type="button"><svg viewBox="0 0 24 24"></svg>'
        f'<span class="eds-is-hidden-accessible">Save this event: {title}</span></button>'
        f'<button type="button"><i><span class="sr-only">Share this event: {title}</span></i></button>'
        "</article>"
    )


PAGE = (
    "<html><head><title>Events</title></head><body><main><h1>Events this month</h1>"
    "<p>Every event below is online and free to join; the times are given in your own time zone.</p>"
    + "".join(_card(t, b) for t, b in EVENTS)
    + "</main></body></html>"
)


def test_the_step_runs_on_every_page_and_says_what_went() -> None:
    doc = convert(PAGE, "text/html", url="https://example.org/events")
    for _, blurb in EVENTS:
        assert blurb in doc.content
    assert "Save this event" not in doc.content and "Share this event" not in doc.content
    assert doc.metadata["screen_reader_text_dropped"] == 2 * len(EVENTS)


def test_only_screen_reader_text_inside_buttons_goes_and_its_tail_stays() -> None:
    root = parse_html(
        "<body><p>Rated <span class='visually-hidden'>4 out of 5</span> by readers</p>"
        "<button><span class='screen-reader-text'>Next slide</span> 3 of 7</button>"
        "<button><span class='sr-only md:not-sr-only'>Open the menu</span></button>"
        "<button><span class='SR-ONLY'>Close <span class='sr-only'>the dialog</span></span></button>"
        "<button class='visually-hidden-toggle'>Show all</button></body>"
    )
    assert drop_screen_reader_text(root) == 2  # the nested span went with the one around it
    assert root.xpath("string(//body)") == "Rated 4 out of 5 by readers 3 of 7Open the menuShow all"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("file_id", "name"),
    [("2913", "save this event"), ("3051", "add to favorites")],  # an event listing, a shop's grid
)
def test_real_listings_read_without_their_buttons_names(file_id: str, name: str) -> None:
    """Two WCXB tune pages whose readings said an icon button's name under every card (trafilatura's
    fallback reading keeps button text); skips where the corpus is absent (outside the repository)."""
    quality = benchmark("bench_extract_quality")
    page = quality.WCXB / "html" / f"{file_id}.html.gz"
    if not page.is_file():
        pytest.skip(f"WCXB's development pages not found at {quality.WCXB} (outside the repository)")
    html = gzip.decompress(page.read_bytes()).decode("utf-8", "replace")
    doc = convert(html, "text/html", url=f"https://example.com/{file_id}/")
    assert len(doc.content.split()) > 100
    assert name not in doc.content.lower()
    assert doc.metadata["screen_reader_text_dropped"] > 10
