"""Sibling inline elements a style sheet shows apart (a card's brand and title) read as two words."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.inline_gaps import space_adjacent_inlines
from hermes_nb.web.extraction.tree import parse_html


def _text(fragment: str) -> str:
    root = parse_html(f"<html><body><p>{fragment}</p></body></html>")
    space_adjacent_inlines(root)
    return " ".join(root.find("body").text_content().split())


def test_a_brand_and_a_title_in_sibling_spans_are_two_words() -> None:
    pair = "<span class='brand'>Scarpa</span><span class='title'>Drago LV Climbing Shoes</span>"
    assert _text(pair) == "Scarpa Drago LV Climbing Shoes"
    field = "<span class='name'>description</span><span class='type'>nullable string</span>"
    assert _text(field) == "description nullable string"
    assert _text("<a href='/a'>Xiu Xiu</a><em>Cherry Bomb</em>") == "Xiu Xiu Cherry Bomb"  # artist, album


def test_styling_runs_drop_caps_ordinals_code_and_cjk_stay_as_written() -> None:
    # one class split into runs inside a word (a site builder's styling runs)
    assert _text("<span class='c'>digital tools includin</span><span class='c'>g a CRM</span>") == (
        "digital tools including a CRM"
    )
    assert _text("<span class='cap'>T</span><span class='rest'>he engine</span>") == "The engine"  # drop cap
    assert _text("the 3<sup>rd</sup> of May") == "the 3rd of May"
    assert _text("<a class='x'>Home</a>, <a class='y'>About</a>") == "Home, About"  # already apart
    code = "<code><span class='k'>print</span><span class='p'>value</span></code>"
    assert _text(code) == "printvalue"
    assert _text("<span class='a'>分析</span><span class='b'>結果</span>") == "分析結果"


FIELDS = (("amount", "integer"), ("currency", "enum"), ("customer", "nullable string"), ("status", "enum"))


def test_an_api_reference_reads_each_fields_name_apart_from_its_type() -> None:
    items = "".join(
        f"<li><div><span class='field-name'>{name}</span><span class='field-type'>{kind}</span></div>"
        f"<p>The {name} of the payment, as the API returns it for every charge it makes.</p></li>"
        for name, kind in FIELDS
    )
    intro = "<h1>The Charge object</h1><p>Attributes of a charge, as the API returns them.</p>"
    page = f"<html><head><title>Charges</title></head><body><main>{intro}<ul>{items}</ul></main></body>"
    doc = content.convert(page, "text/html", url="https://docs.example.org/api/charges/object")
    assert "customer nullable string" in doc.content
    assert "amountinteger" not in doc.content


def test_a_line_break_that_ends_an_inline_element_keeps_the_words_apart() -> None:
    root = parse_html("<html><body><p><em>Epipremnum aureum<br></em>Low to high light</p></body></html>")
    assert space_adjacent_inlines(root) == 1
    assert [el.tag for el in root.find("body/p")] == ["em", "br"]
    assert root.find("body/p/br").tail == "Low to high light"
    prose = "Pothos is a tropical vine that grows well indoors and forgives a missed watering or two. " * 4
    plants = "".join(
        f"<h2>{i}. Plant {i}</h2><p><em>Genus species{i}<br></em>Low to high light. {prose}</p>"
        for i in range(4)
    )
    page = f"<html><head><title>Plants</title></head><body><article><h1>Plants</h1>{plants}</article></body>"
    doc = content.convert(page, "text/html", url="https://garden.example.org/2024/05/plants", format="text")
    assert "species2Low" not in doc.content
    assert "Low to high light" in doc.content


def test_a_row_of_tags_and_a_name_beside_a_role_read_apart_though_their_class_is_one() -> None:
    tags = "".join(f"<a class='tag' href='/tags/{t}'>{t}</a>" for t in ("Difficult", "Trading", "Realistic"))
    assert _text(tags) == "Difficult Trading Realistic"
    person = "<span class='c'>Henry Modisett</span><span class='c'>Head of Design</span>"
    assert _text(person) == "Henry Modisett Head of Design"
    assert _text("<span>SKU: NKZ5M2K2</span><span>MFR: 2020</span>") == "SKU: NKZ5M2K2 MFR: 2020"
    assert _text("'ß'<code>U+00DF</code><code>0x C3 9F</code>") == "'ß'U+00DF 0x C3 9F"
    # one link set in runs, and runs that go on inside a word in lower case, stay as written
    assert _text("<a class='l' href='/x'>Java</a><a class='l' href='/x'>Script</a>") == "JavaScript"
    assert _text("<span class='c'>the quick bro</span><span class='c'>wn fox jumps</span>") == (
        "the quick brown fox jumps"
    )
