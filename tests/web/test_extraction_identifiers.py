"""Lines of UUIDs (a label spelt between style-hidden identifiers) are not text and go."""

from __future__ import annotations

import uuid

from hermes_nb.web import content
from hermes_nb.web.extraction.identifiers import UUID_RUN, drop_identifier_lines

DESCRIPTION = (
    "A wheel thrown stoneware mug with a matte speckled glaze outside and a clear glazed interior, "
    "safe in dishwashers and microwave ovens."
)


def _ids(n: int, seed: int = 0) -> list[str]:
    return [str(uuid.UUID(int=(seed + 1) * 7919 + i * 104729)) for i in range(n)]


def _spelt(label: str) -> str:
    """``label`` one letter at a time between hidden UUID spans, as some shops obfuscate "Sponsored"."""
    ids = _ids(len(label), seed=3)
    pairs = zip(label, ids, strict=True)
    return "".join(f"<span class='a'>{ch}</span><span class='h'>{i}</span>" for ch, i in pairs)


def test_a_line_of_uuids_goes_and_prose_stays() -> None:
    soup = "S" + "p".join(_ids(12))
    text, dropped = drop_identifier_lines(f"# Mug\n\n{DESCRIPTION}\n\n{soup}\n\nSize: 9 cm")
    assert dropped == 1
    assert text == f"# Mug\n\n{DESCRIPTION}\n\nSize: 9 cm"


def test_identifiers_quoted_in_prose_code_and_tables_stay() -> None:
    a, b, c = _ids(UUID_RUN)
    markdown = (
        f"Set the key to {a} in the settings, then restart the service and check the log for errors.\n\n"
        f"Keys {a} and {b} were rotated.\n\n"
        f"```\n{a} {b} {c}\n```\n\n| {a} | {b} | {c} |"
    )
    assert drop_identifier_lines(markdown) == (markdown, 0)


def test_a_product_page_does_not_read_its_obfuscated_labels() -> None:
    head = '<script type="application/ld+json">{"@type": "Product", "name": "Mug"}</script>'
    cards = "".join(
        f"<li><div>{_spelt('Sponsored')}</div><a href='/itm/{i}'>Mug number {i}</a> $1{i}.00</li>"
        for i in range(3)
    )
    body = f"<main><h1>Mug</h1><p>{DESCRIPTION}</p><p>$60.00</p><h2>Similar items</h2><ul>{cards}</ul></main>"
    doc = content.convert(
        f"<html><head><title>Mug</title>{head}</head><body>{body}</body></html>",
        "text/html",
        url="https://shop.example.org/itm/1",
    )
    assert "wheel thrown stoneware" in doc.content
    assert not any(i in doc.content for i in _ids(9, seed=3))
