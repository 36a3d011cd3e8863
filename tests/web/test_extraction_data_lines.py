"""Lines of data (a widget's JSON settings, a template's printed dict) are not text and go."""

from __future__ import annotations

import json

from hermes_nb.web import content
from hermes_nb.web.extraction.data_lines import LONG_CHARS, _parsed, drop_data_lines, is_data

PROSE = (
    "The river rose four metres overnight, and by morning the lower town was under water; the council "
    "opened the school hall to families from the flooded streets and asked for dry blankets."
)
SETTINGS = {
    "widgetId": "GridWidget",
    "pageType": "BROWSE",
    "items": ["B0CXGXT6W8", "B0CYNFWD2R", "B0D2XRXNGY"],
    "sortOrder": "relevance",
    "showFilters": False,
}
LOCALES = {"en-in": "https://example.com/en-in/", "en-jp": "https://example.com/en-jp/",
           "de-de": "https://example.com/de-de/", "x-default": "https://example.com/"}


def test_a_json_object_and_a_printed_dict_go_and_prose_stays() -> None:
    markdown = f"# Floods\n\n{PROSE}\n\n{json.dumps(SETTINGS)}\n\n{LOCALES!r}\n\nPhotos: the council"
    text, dropped = drop_data_lines(markdown)
    assert dropped == 2
    assert text == f"# Floods\n\n{PROSE}\n\nPhotos: the council"


def test_an_object_read_with_markdown_escapes_is_data() -> None:
    escaped = json.dumps(SETTINGS).replace("[", "\\[").replace("]", "\\]")
    assert is_data(escaped)
    assert is_data(json.dumps([SETTINGS, SETTINGS]))


def test_a_long_object_a_reading_mangled_is_data_but_a_short_one_is_not() -> None:
    members = ",".join(f'"key{i}":"value {i}"' for i in range(LONG_CHARS // 15))
    mangled = "{" + members + ',"cut":"{label:"",x:{y:\\"z}'  # broken quoting: no parser reads it
    assert _parsed(mangled) is None and len(mangled) >= LONG_CHARS
    assert is_data(mangled)
    short = '{"a":"1","b":"2","c":"{x:"",y:2}' + " padding words" * 5
    assert not is_data(short)


def test_small_objects_braces_in_prose_code_and_tables_stay() -> None:
    code = json.dumps(SETTINGS)
    markdown = (
        '{"ok": true, "count": 2}\n\n'
        "{Braces} in a sentence are not data, even when a line starts and ends with them, like this one}\n\n"
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]\n\n"
        f"```json\n{code}\n```\n\n| settings |\n|---|\n| {code} |"
    )
    assert drop_data_lines(markdown) == (markdown, 0)


def _page(url: str, body: str) -> content.Document:
    html = f"<html><head><title>Floods</title></head><body>{body}</body></html>"
    return content.convert(html, "text/html", url=url)


def test_a_page_does_not_read_its_widgets_settings() -> None:
    body = (
        f"<main><article><h1>Floods in the lower town</h1><p>{PROSE}</p><p>{PROSE}</p>"
        f"<div class='grid-settings'>{json.dumps(SETTINGS)}</div><p>{PROSE}</p></article></main>"
    )
    doc = _page("https://news.example.org/2026/03/floods", body)
    assert "rose four metres" in doc.content
    assert "GridWidget" not in doc.content and "sortOrder" not in doc.content
    assert doc.metadata["data_lines_dropped"] == 1


def test_documentation_keeps_an_example_object() -> None:
    body = (
        f"<main><h1>Grid settings</h1><p>{PROSE}</p><p>Pass an object like this one:</p>"
        f"<p>{json.dumps(SETTINGS)}</p><p>{PROSE}</p></main>"
    )
    doc = _page("https://example.org/docs/grid-settings", body)
    assert doc.metadata["page_type"] == "documentation"
    assert "GridWidget" in doc.content
    assert "data_lines_dropped" not in doc.metadata


def test_a_line_nested_past_the_parsers_is_no_error() -> None:
    deep = '{"a":' * 5000 + "1" + "}" * 5000
    assert _parsed(deep) is None  # both parsers give up (too deep), without an exception
    assert is_data(deep)  # and it reads as data by its keys
    assert drop_data_lines(f"{PROSE}\n\n{'[' * 3000}{{}}{']' * 3000}")[0].startswith(PROSE)
