"""A page whose scripts render its text may serve it whole in ``<noscript>``: that copy repairs a reading."""

from __future__ import annotations

import pytest

from hermes_nb.web import content
from hermes_nb.web.extraction import candidates
from hermes_nb.web.extraction.candidates import Candidate, noscript_candidate
from hermes_nb.web.extraction.tree import parse_html

REPLIES = [
    f"Reply {i}: I moved my automations from Node-RED to the built-in editor last spring, and the "
    f"number {i} thing I learned is to keep each one small, named for what it does, and tested alone."
    for i in range(8)
]
QUESTION = (
    "I would like to ask for your advice on setting up automations and scripts. I have several running "
    "in Node-RED and am thinking of moving them. How many automations do you use, and when do you write "
    "a script instead? Does the number of them slow the system down?"
)
NOTICE = "<div class='Alert'>This site is best viewed in a modern browser with JavaScript enabled.</div>"


def _thread(copy: str) -> str:
    """A thread as forum software that renders it with scripts serves it: an empty app, the thread
    whole in ``<noscript>``, a post an ``<article>``."""
    return (
        "<html><head><title>Automations and scripts</title></head><body><main class='App-content'>"
        f"<div id='content'></div><noscript>{NOTICE}</noscript><noscript id='forum-content'>{copy}</noscript>"
        "</main></body></html>"
    )


def _posts(texts: list[str]) -> str:
    post = "<article><h3>user{i}</h3><div class='body'><p>{text}</p></div></article>"
    return "".join(post.format(i=i, text=text) for i, text in enumerate(texts))


@pytest.fixture
def first_post_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """trafilatura reading the first ``<article>`` of such a copy alone, as it did on a real thread."""

    def first_post(root: object, url: object, mode: str = candidates.TRAFILATURA, **_: object) -> Candidate:
        return Candidate(mode, QUESTION)

    monkeypatch.setattr(candidates, "trafilatura_candidate", first_post)


@pytest.mark.usefixtures("first_post_only")
def test_a_thread_served_whole_in_noscript_is_read_whole() -> None:
    page = _thread("<h1>Automations and scripts</h1>" + _posts([QUESTION, *REPLIES]))
    doc = content.convert(page, "text/html", url="https://community.example.org/d/42-automations")
    assert doc.metadata["extractor"] == "noscript"
    assert "Reply 7: I moved my automations" in doc.content
    assert doc.content.count("I would like to ask for your advice") == 1


@pytest.mark.usefixtures("first_post_only")
def test_a_noscript_block_that_does_not_hold_the_reading_is_not_its_copy() -> None:
    # a long <noscript> pitch for the app, without the post the page shows
    pitch = _posts([reply.replace("Reply", "Feature") for reply in REPLIES])
    doc = content.convert(_thread(pitch), "text/html", url="https://community.example.org/d/42-automations")
    assert doc.metadata["extractor"] != "noscript"
    assert "Feature 3" not in doc.content


def test_the_largest_noscript_block_is_the_copy_and_a_short_one_is_none() -> None:
    root = parse_html(_thread(_posts([QUESTION, *REPLIES])))
    copy = noscript_candidate(root, at_least=len(QUESTION))
    assert copy is not None and "Reply 7" in copy.markdown and "JavaScript enabled" not in copy.markdown
    assert noscript_candidate(parse_html(_thread("")), at_least=10) is not None  # the notice, 60 chars
    assert noscript_candidate(parse_html(_thread("")), at_least=200) is None
