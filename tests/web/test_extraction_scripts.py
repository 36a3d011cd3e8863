"""Articles in scripts without spaces or without '.' read as articles, with the confidence of any other."""

from __future__ import annotations

import pytest

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.choose import prose_share
from hermes_nb.web.extraction.scripts import WORD, word_count

#: One sentence, "Researchers measured the thermal conductivity of a new material ...", in each script.
SENTENCES = {
    "en": "Researchers measured the thermal conductivity of a new material in the laboratory and discussed "
    "what the results mean for future battery designs.",
    "zh": "研究人员在实验室中测量了一种新材料的导热性能，并讨论了这些结果对未来电池设计的意义。",
    "ja": "研究者たちは実験室で新しい材料の熱伝導率を測定し、"
    "その結果が将来の電池設計にどのような意味を持つかを議論した。",
    "th": "นักวิจัยได้วัดค่าการนำความร้อนของวัสดุใหม่ในห้องปฏิบัติการและอภิปรายถึงความหมายของผลลัพธ์ต่อการออกแบบแบตเตอรี่ในอนาคต",
    "hi": "शोधकर्ताओं ने प्रयोगशाला में एक नई सामग्री की तापीय चालकता को मापा और चर्चा की कि परिणामों का भविष्य की "
    "बैटरी डिज़ाइन के लिए क्या अर्थ है।",
    "ur": "محققین نے لیبارٹری میں ایک نئے مواد کی حرارتی چالکتا کی پیمائش کی "
    "اور اس پر بات کی کہ نتائج مستقبل کے بیٹری ڈیزائن کے لیے کیا معنی رکھتے ہیں۔",
    "am": "ተመራማሪዎቹ በቤተ ሙከራ ውስጥ የአዲስ ቁሳቁስ የሙቀት ማስተላለፊያነት ለኩ እና ውጤቶቹ ለወደፊቱ የባትሪ ንድፎች ምን ማለት "
    "እንደሆነ ተወያዩ።",
    "km": "អ្នកស្រាវជ្រាវបានវាស់ចរន្តកម្ដៅនៃសម្ភារៈថ្មីមួយនៅក្នុងមន្ទីរពិសោធន៍ "
    "ហើយបានពិភាក្សាអំពីអត្ថន័យនៃលទ្ធផលសម្រាប់ការរចនាថ្មនាពេលអនាគត។",
}


def test_han_and_kana_count_a_word_a_character_and_other_scripts_as_before() -> None:
    found = WORD.findall("新材料 iPhone15を買った don't")
    assert found == ["新", "材", "料", "iPhone15", "を", "買", "っ", "た", "don", "t"]
    assert word_count("新材料 iPhone15を買った don't") == 3 + 5 + 1
    english = "A sentence — with dashes, e.g. abbreviations and don't."
    assert word_count(english) == len(english.split())


@pytest.mark.parametrize("lang", sorted(SENTENCES))
def test_a_paragraph_in_any_script_is_prose(lang: str) -> None:
    sentence = SENTENCES[lang]
    assert prose_share(f"{sentence} {sentence}") == 1.0


@pytest.mark.parametrize("lang", sorted(SENTENCES))
def test_an_article_in_any_script_is_an_article_read_with_confidence(lang: str) -> None:
    s = SENTENCES[lang]
    menu = "".join(f"<li><a href='/c{i}'>{s[i * 3:i * 3 + 6]}</a></li>" for i in range(12))
    page = (
        f"<html lang={lang}><head><title>{s[:20]}</title></head><body><header><ul>{menu}</ul></header>"
        f"<main><article><h1>{s[:20]}</h1>{''.join(f'<p>{s} ({n}) {s}</p>' for n in range(10))}</article>"
        f"<aside><ul>{menu}</ul></aside></main><footer><p>© 2025</p></footer></body></html>"
    )
    doc = convert(page, "text/html", url=f"https://news.example.org/{lang}/2025/article")
    assert all(f"{s} ({n}) {s}" in doc.content for n in range(10))
    assert doc.metadata["page_type"] == "article" and "low_confidence" not in doc.metadata
    assert doc.metadata["confidence"] >= 0.6
