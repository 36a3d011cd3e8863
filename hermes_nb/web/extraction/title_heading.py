"""An article's title at the head of its reading, taken out: it is the document's title, not its text.

trafilatura reads an article's ``<h1>`` when the heading sits inside the container it keeps, and
leaves it out when it does not; so a reading opens with the title on some pages and not on others.
The title is the ``Document``'s ``title`` either way (the page's metadata says it, and the notebook
card shows it as its head, above a reading that said it again). So on an article or a documentation
page, a reading whose first line is a heading saying the page's title (the whole of it, or three words
or more of it, as in "Title | Site") loses that line, as Readability drops a heading that duplicates
the title. A heading that says more than the title, or something else, stays: an ``<h1>`` that
differs from the page's title is its text's own heading (Readability's test page
"title-and-h1-discrepancy"). So does the heading of any other kind of page: a product's, a service's
or a thread's name heads its text.

WCXB's references keep an article's title apart from its text in the same way (their ``title``
field). On its tune part: +0.0004 F1, both halves up (110 pages up, 21 down; articles +0.0006, 92 up
and 8 down); Readability's pages +0.0004. Matching the page's first ``<h1>`` as well as its title
gained 0.0001 more on WCXB and cost Readability's pages 0.0008.
"""

from __future__ import annotations

from hermes_nb.markdown_heading import HEADING

from .scripts import word_key

__all__ = ["TITLED_TYPES", "drop_title_heading"]

#: Page types whose title is the document's, not the first line of its text.
TITLED_TYPES = frozenset({"article", "documentation"})
PART_WORDS = 3  # a heading saying fewer of the title's words is a section's ("Overview"), not the title


def drop_title_heading(markdown: str, title: str) -> tuple[str, int]:
    """``markdown`` without its first line when that line is a heading saying ``title`` (see above),
    and 1; else ``markdown`` and 0. A reading that would be left empty keeps its heading."""
    key = word_key(title)
    lines = markdown.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if not key or first is None:
        return markdown, 0
    match = HEADING.match(lines[first].strip())
    said = word_key(match.group(1)) if match else ""
    if not said or not (said == key or (len(said.split()) >= PART_WORDS and f" {said} " in f" {key} ")):
        return markdown, 0
    rest = "\n".join(lines[first + 1 :]).strip()
    return (rest, 1) if rest else (markdown, 0)
