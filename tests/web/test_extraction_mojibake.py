"""Text a server decoded with the wrong charset and wrote out again is read as it was written."""

from __future__ import annotations

import pytest

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.mojibake import repair_mojibake

WRITTEN = (
    "Freie Lastenräder für Berlin — the city’s “cargo bikes”, 日本語 and привет, © 2026 😀. "
    "Riders borrow them for free, a day at a time, from cafés, shops and libraries across the city. "
)


def _twice_decoded(text: str) -> str:
    """What a server that read UTF-8 as windows-1252 (Latin-1 where it has no character) writes out."""
    chars = []
    for byte in text.encode("utf-8"):
        shown = bytes([byte]).decode("cp1252", errors="ignore")  # "" for its five undefined bytes
        chars.append(shown or chr(byte))
    return "".join(chars)


def test_a_page_decoded_twice_reads_as_written() -> None:
    garbled = _twice_decoded(WRITTEN)
    assert "fÃ¼r" in garbled and "â€" in garbled  # the damage, as such pages show it
    page = f"<html><head><title>{_twice_decoded('Lastenräder')}</title></head><body><article>"
    page += f"<h1>Cargo bikes</h1><p>{garbled * 3}</p></article></body></html>"
    doc = convert(page, "text/html", url="https://example.org/bikes", format="text")
    assert WRITTEN.strip() in doc.content and "Ã" not in doc.content and "â€" not in doc.content
    assert doc.title == "Lastenräder" and doc.metadata["mojibake_repaired"] > 10


def test_code_that_shows_mojibake_keeps_it() -> None:
    # A post about encodings shows the garbage on purpose, in code.
    page = (
        f"<html><body><article><h1>Encodings</h1><p>{WRITTEN * 3}</p><p>Read as windows-1252, "
        f"<code>{_twice_decoded('für')}</code> is what {_twice_decoded('für')} looks like.</p>"
        f"<pre>print('{_twice_decoded('Grüße — für')}')</pre></article></body></html>"
    )
    doc = convert(page, "text/html", url="https://example.org/encodings")
    assert "`fÃ¼r` is what für looks like." in doc.content
    assert f"print('{_twice_decoded('Grüße — für')}')" in doc.content  # preformatted, as written


@pytest.mark.parametrize(
    "text",
    [
        "CAFÉ… and FUß“ in a headline",  # valid UTF-8 for letters of other alphabets: not touched
        "naïve café, À bientôt, Grüße, 3×² and Ã alone",
        "plain ASCII text",
    ],
)
def test_text_written_right_is_left_as_it_is(text: str) -> None:
    assert repair_mojibake(text) == (text, 0)
