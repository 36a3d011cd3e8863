"""A reply's quotation of an earlier post, set in an ``<aside>``, is read with the thread."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction import candidates as cands
from hermes_nb.web.extraction.quoted_posts import open_quoted_posts
from hermes_nb.web.extraction.tree import parse_html

REPLIES = [
    "Renewals will use the shorter chain from next month, so clients that pinned the old root need a look.",
    "Our appliances still ship the old bundle, and updating them takes a firmware release every time.",
    "The documentation says the preferred chain option only changes the order of the offered chains.",
    "Pinning an intermediate was never supported, but many vendors did it anyway to save a round trip.",
    "After the switch our monitoring flagged two hosts that had cached the retired intermediate.",
    "A rolling restart of the proxies cleared the cached chain, and nothing else needed to change.",
]
QUOTED = "Does this mean the preferred chain setting stops working for our older clients?"


def _post(i: int, reply: str) -> str:
    quote = (
        f"<aside class='quote no-group' data-username='tatyana'><div class='title'>tatyana:</div>"
        f"<blockquote><p>{QUOTED}</p></blockquote></aside>"
        if i == 3
        else ""
    )
    return (
        f"<div class='topic-post'><article class='post' id='post_{i}'><span class='author'>user{i}</span>"
        f"<div class='cooked'>{quote}<p>Post {i}: {reply} {reply}</p></div></article></div>"
    )


THREAD = (
    "<html><head><title>Shortening the chain of trust - Community</title></head><body><main>"
    + "".join(_post(i, r) for i, r in enumerate(REPLIES))
    + "</main><aside class='sidebar'><p>Suggested topics: renewing certificates, rate limits</p></aside>"
    "</body></html>"
)
URL = "https://community.example/t/shortening-the-chain-of-trust/21"


def test_trafilatura_reads_the_quotation_only_once_its_aside_is_a_blockquote() -> None:
    assert QUOTED not in cands.trafilatura_candidate(parse_html(THREAD), URL).markdown
    root = parse_html(THREAD)
    assert open_quoted_posts(root) == 1
    assert QUOTED in cands.trafilatura_candidate(root, URL).markdown


def test_a_thread_keeps_the_quotation_and_says_so() -> None:
    doc = content.convert(THREAD, "text/html", url=URL)
    assert doc.metadata["page_type"] == "forum"
    assert QUOTED in doc.content
    assert "Suggested topics" not in doc.content
    assert doc.metadata["quoted_posts_opened"] == 1


def test_only_asides_that_name_a_quotation_change() -> None:
    root = parse_html(
        "<body><aside class='onebox githubrepo' id='preview'><p>github.com/acme/tool</p></aside>"
        "<div class='bbCodeBlock bbCodeQuote'><aside id='xenforo'>Ana said: it works</aside></div>"
        "<aside class='Quote-Card' id='named'>Quoted words</aside>"
        "<aside class='sidebar' id='sidebar'>Related threads</aside></body>"
    )
    assert open_quoted_posts(root) == 2
    assert [el.get("id") for el in root.iter("aside")] == ["preview", "sidebar"]
    assert [el.get("id") for el in root.iter("blockquote")] == ["xenforo", "named"]
