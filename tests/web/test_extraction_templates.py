"""Inert <template> content is never read; a declarative shadow root is read where its host stands."""

from __future__ import annotations

from lxml import etree

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.templates import open_templates
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, "
    "and it might act upon other things besides number, were objects found whose mutual relations could "
    "be expressed by those of the abstract science of operations. "
)


def test_an_inert_template_is_not_read_and_a_shadow_root_is() -> None:
    page = (
        f"<html><body><article><h1>Engine</h1><p>{PROSE}</p>"
        "<template id='empty'><p>No results. Clear your filters and try again.</p></template>"
        f"<engine-note><template shadowrootmode='open'><p>Menabrea's memoir, translated. {PROSE}</p>"
        "</template></engine-note></article></body></html>"
    )
    doc = convert(page, "text/html", url="https://example.org/engine")
    assert "No results" not in doc.content and "Menabrea's memoir, translated." in doc.content
    assert doc.metadata["templates_dropped"] == 1 and doc.metadata["shadow_roots_opened"] == 1


def test_nested_templates_go_with_their_outer_one_and_nested_shadow_roots_all_open() -> None:
    root = parse_html(
        "<div><template><p>a<template shadowrootmode='open'>b</template></p></template>"
        "<x-a><template shadowroot='open'><p>c</p><x-b><template shadowrootmode='closed'>d</template></x-b>"
        "</template>light</x-a></div>"
    )
    assert open_templates(root) == (1, 2)
    assert etree.tostring(root.find(".//div"), encoding="unicode") == (
        "<div><x-a><p>c</p><x-b>d</x-b>light</x-a></div>"
    )
