"""Charset labels read as browsers read them (the WHATWG Encoding Standard), mapped to Python codecs.

A page's declared charset is a label, and browsers do not take every label literally: a page that
says ``iso-8859-1`` or ``us-ascii`` is decoded as windows-1252, so its curly quotes and dashes in
0x80–0x9F read as punctuation rather than invisible C1 controls; ``gb2312`` is read as GBK,
``shift_jis`` as Windows-31J and ``euc-kr`` as Windows-949, the supersets that real pages in those
labels use. A ``<meta>`` that names UTF-16 in a page whose bytes were readable as ASCII cannot be
right, so such a declaration means UTF-8. ``codec_for`` applies those rules and otherwise defers to
Python's own label lookup.
"""

from __future__ import annotations

import codecs

__all__ = ["codec_for"]


def _labels(codec: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), codec)


# Only the labels whose browser reading differs from Python's, or that Python does not know.
_WHATWG: dict[str, str] = {
    **_labels("cp1252", "ansi_x3.4-1968 ascii cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 "
                        "iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii x-cp1252"),
    **_labels("cp1254", "csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 "
                        "l5 latin5 x-cp1254"),
    **_labels("cp874", "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874"),
    **_labels("gb18030", "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk"),
    **_labels("big5hkscs", "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    **_labels("cp932", "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis"),
    **_labels("cp949", "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 "
                       "ksc5601 ksc_5601 windows-949"),
    **_labels("iso-8859-8", "csiso88598i iso-8859-8-i logical"),
    **_labels("koi8-u", "koi8-ru"),
    **_labels("mac-roman", "csmacintosh mac macintosh x-mac-roman"),
    **_labels("mac-cyrillic", "x-mac-cyrillic x-mac-ukrainian"),
    **_labels("utf-8", "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 x-unicode20utf8"),
    **_labels("utf-16-le", "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le"),
    **_labels("utf-16-be", "unicodefffe utf-16be"),
}
# What a <meta> prescan found: the bytes were ASCII-readable, so no UTF-16 label can be true, and
# x-user-defined pages are read as windows-1252 (both as browsers do).
_FROM_META = {"utf-16-le": "utf-8", "utf-16-be": "utf-8"}


def codec_for(label: str | bytes | None, *, from_meta: bool = False) -> str | None:
    """The Python codec that decodes text labelled ``label`` as a browser would, or ``None`` if unknown.

    ``from_meta``: the label came from the document's own bytes (``<meta>`` or an XML declaration).
    """
    if not label:
        return None
    name = (label.decode("ascii", "ignore") if isinstance(label, bytes) else label).strip().lower()
    if from_meta and name == "x-user-defined":
        return "cp1252"
    codec = _WHATWG.get(name)
    if codec is None:
        try:
            codecs.lookup(name)
        except LookupError:
            return None
        codec = name
    return _FROM_META.get(codec, codec) if from_meta else codec
