"""Ruby annotations (furigana, pinyin) are reading aids: the base text is what the page says."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.ruby import drop_ruby_annotations
from hermes_nb.web.extraction.tree import parse_html

SENTENCE = (
    "<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字<rt>じ</rt></ruby>の読み方を説明する長い段落です。"
    "<ruby><rb>東京</rb><rt>とうきょう</rt></ruby>は日本の首都で、多くの人が住んでいます。"
)
PAGE = f"<html lang=ja><body><article><h1>読み方</h1>{f'<p>{SENTENCE}</p>' * 4}</article></body></html>"


def test_the_base_text_is_read_without_its_readings() -> None:
    doc = convert(PAGE, "text/html", url="https://example.jp/yomi")
    assert "漢字の読み方を説明する" in doc.content and "東京は日本の首都" in doc.content
    assert "かん" not in doc.content and "とうきょう" not in doc.content and "(" not in doc.content
    assert doc.metadata["ruby_annotations_dropped"] == 4 * 5


def test_only_annotations_inside_ruby_go() -> None:
    root = parse_html("<p><ruby>字<rt>じ</rt></ruby> and a stray <rt>rt</rt> outside</p>")
    assert drop_ruby_annotations(root) == 1
    assert root.xpath("string(//p)") == "字 and a stray rt outside"
