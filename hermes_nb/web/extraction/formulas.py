"""Formulas kept as TeX, ``$…$`` inline and ``$$…$$`` displayed, which a notebook typesets.

A page shows mathematics as MathML (arXiv's HTML, MathJax 3's assistive copy), as MathML hidden
behind an image whose ``alt`` holds the TeX (Wikipedia), as KaTeX's rendering with the TeX in an
``<annotation>``, or as MathJax 2's ``<script type="math/tex">``. The extractors read none of them
well: trafilatura drops ``<math>``, an image's ``alt`` and scripts, and where MathML survived it came
out as a run of symbols ("x = − b ± b 2 − 4 a c 2 a" for the quadratic formula). Before the
extractors read the page, each formula becomes a placeholder holding its TeX — the page's own where
it has one (``alttext``, the annotation, the image's ``alt``, the script), else TeX written from the
MathML's structure — and after them ``restore_formulas`` puts the TeX in its place. The placeholder
keeps the TeX away from the extractors' Markdown escapes (``a_{ij}`` would become ``a\\_{ij}``).
"""

from __future__ import annotations

import re
from typing import Any

#: Where a formula stood in a reading until ``restore_formulas`` puts its TeX back: printable, and no
#: Markdown mark, so that no extractor strips or escapes it.
PLACEHOLDER = re.compile("\u27e6formula(\\d+)\u27e7")
#: A formula in Markdown: ``$$…$$``, or ``$…$`` holding TeX's marks (``$5 and $10`` is two prices).
#: Neither runs into a link's target: "$800 … [lens](https://…?a_b=1) … $200" is two prices too.
_NOT_A_TARGET = r"(?:(?!\]\()[^$\n])"
FORMULA = re.compile(
    rf"\$\$(?:(?!\]\()[^$])+?\$\$|\$(?=[^$\s])(?={_NOT_A_TARGET}*[\\^_{{}}=]){_NOT_A_TARGET}*?[^$\s]\$"
)
#: The elements that hold a formula (MathML, MathJax, KaTeX, Wikipedia's math), each read as TeX.
FORMULA_ELEMENTS = (
    "//math | //mjx-container | //script[@type][starts-with(normalize-space(@type), 'math/tex')]"
    " | //span[@class][contains(concat(' ', normalize-space(@class), ' '), ' katex ')"
    " or contains(@class, 'mwe-math-element')] | //div[@class][contains(@class, 'mwe-math-element')]"
)
#: MathJax 2's renderings of a ``math/tex`` script, beside it: the script is read instead.
_MATHJAX2_RENDERINGS = frozenset(
    {"MathJax", "MathJax_Preview", "MathJax_Display", "MathJax_CHTML", "MathJax_SVG", "MathJax_SVG_Display",
     "MJX_Assistive_MathML", "mjx-chtml"}
)
_INVISIBLE = re.compile("[\u2061-\u2064]")  # function application, invisible times, separator, plus
_DISPLAY_STYLE = re.compile(r"^\{\\(?:display|text)style\s*(.*)\}$", re.S)
_ACCENTS = {"¯": r"\overline", "‾": r"\overline", "^": r"\hat", "ˆ": r"\hat", "~": r"\tilde", "˜": r"\tilde",
            "→": r"\vec", "⃗": r"\vec", "˙": r"\dot", "¨": r"\ddot"}


def hold_formulas(root: Any) -> list[str]:
    """Put a placeholder where each formula of the page stands; the Markdown of each, in order."""
    formulas: list[str] = []
    # Every kind holds <math> (KaTeX's and Wikipedia's hidden copy too), but MathJax's: a cheap test first.
    scripts = (el.get("type") or "" for el in root.iter("script"))
    if next(root.iter("math", "mjx-container"), None) is None and not any(
        kind.strip().startswith("math/tex") for kind in scripts
    ):
        return formulas
    found = root.xpath(FORMULA_ELEMENTS)
    chosen = set(found)
    for el in found:
        if any(up in chosen for up in el.iterancestors()):
            continue  # inside a formula already read whole (KaTeX's and MathJax's own MathML)
        tex, display = _tex_of(el)
        if not tex:
            continue
        formulas.append(f"$${tex}$$" if display else f"${tex}$")
        placeholder = f"\u27e6formula{len(formulas) - 1}\u27e7"
        if el.tag in ("div", "p", "figure", "center"):  # a block of its own: a paragraph
            block = el.makeelement("p", {})
            block.text, block.tail = placeholder, el.tail
            el.getparent().replace(el, block)
        else:
            _replace_with_text(el, placeholder)
    if any(el.tag == "script" for el in chosen):
        for el in root.xpath("//*[@class]"):
            if _MATHJAX2_RENDERINGS & set(el.get("class", "").split()) and el.getparent() is not None:
                el.drop_tree()
    return formulas


def restore_formulas(markdown: str, formulas: list[str]) -> str:
    """``markdown`` with each placeholder replaced by its formula's TeX."""
    if not formulas or "\u27e6formula" not in markdown:
        return markdown
    def tex(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return formulas[index] if index < len(formulas) else match.group(0)  # the page's own text

    return PLACEHOLDER.sub(tex, markdown)


def _replace_with_text(el: Any, text: str) -> None:
    """``el`` replaced by ``text`` run into the text around it (no element edge for an extractor to trim)."""
    parent, previous = el.getparent(), el.getprevious()
    joined = text + (el.tail or "")
    if previous is not None:
        previous.tail = (previous.tail or "") + joined
    else:
        parent.text = (parent.text or "") + joined
    parent.remove(el)


def _tex_of(el: Any) -> tuple[str, bool]:
    """A formula element's TeX (the page's own, else written from its MathML) and whether it is displayed."""
    tag = el.tag
    classes = set((el.get("class") or "").split())
    if tag == "script":
        return _clean(el.text or ""), "mode=display" in (el.get("type") or "").replace(" ", "")
    if "mwe-math-element" in classes:  # Wikipedia: hidden MathML, and an image whose alt is the TeX
        images = el.xpath(".//img[@alt]")
        display = bool(el.xpath(".//math[@display='block']")) or any(
            "display" in (img.get("class") or "") for img in images
        )
        sources = [m.get("alttext") for m in el.iter("math") if m.get("alttext")]
        sources += [img.get("alt") for img in images]
        if sources:
            return _clean(sources[0]), display
    display = (el.get("display") or "") in ("block", "true") or any(
        "katex-display" in (up.get("class") or "") for up in el.iterancestors()
    )
    math = el if tag == "math" else next(el.iter("math"), None)
    if math is None:
        return "", False
    display = display or (math.get("display") or "") == "block"
    own = math.get("alttext") or "".join(math.xpath(".//annotation[contains(@encoding, 'tex')]//text()"))
    return _clean(own if own.strip() else _mathml(math)), display


def _clean(tex: str) -> str:
    tex = " ".join(tex.split())
    match = _DISPLAY_STYLE.match(tex)
    return (match.group(1) if match else tex).strip()


def _mathml(el: Any) -> str:
    """TeX for a MathML element, from its structure (the symbols as the page has them)."""
    tag = el.tag if isinstance(el.tag, str) else ""
    kids = [kid for kid in el if isinstance(kid.tag, str)]
    if tag in ("mi", "mn", "mo", "ms"):
        return _INVISIBLE.sub("", el.text_content() or "").strip()
    if tag == "mtext":
        text = (el.text_content() or "").strip()
        return rf"\text{{{text}}}" if text else ""
    if tag in ("annotation", "annotation-xml", "mphantom", "none", "mprescripts"):
        return ""
    if tag == "mspace":
        return r"\;"
    if tag == "semantics":
        return _mathml(kids[0]) if kids else ""
    parts = [_mathml(kid) for kid in kids]
    if tag == "msup" and len(parts) == 2:
        return f"{_group(parts[0])}^{{{parts[1]}}}"
    if tag == "msub" and len(parts) == 2:
        return f"{_group(parts[0])}_{{{parts[1]}}}"
    if tag in ("msubsup", "munderover") and len(parts) == 3:
        return f"{_group(parts[0])}_{{{parts[1]}}}^{{{parts[2]}}}"
    if tag == "mfrac" and len(parts) == 2:
        if re.fullmatch(r"0(?:\.0*)?[a-z]*", (el.get("linethickness") or "").strip()):  # a binomial's stack
            return rf"\genfrac{{}}{{}}{{0pt}}{{}}{{{parts[0]}}}{{{parts[1]}}}"
        return rf"\frac{{{parts[0]}}}{{{parts[1]}}}"
    if tag == "msqrt":
        return rf"\sqrt{{{' '.join(parts)}}}"
    if tag == "mroot" and len(parts) == 2:
        return rf"\sqrt[{parts[1]}]{{{parts[0]}}}"
    if tag == "mover" and len(parts) == 2:
        accent = _ACCENTS.get(parts[1])
        return f"{accent}{{{parts[0]}}}" if accent else rf"\overset{{{parts[1]}}}{{{parts[0]}}}"
    if tag == "munder" and len(parts) == 2:
        return rf"\underset{{{parts[1]}}}{{{parts[0]}}}"
    if tag == "mfenced":
        separator = (el.get("separators") or ",").strip()[:1] or ","
        return f"{el.get('open', '(')}{separator.join(parts)}{el.get('close', ')')}"
    if tag == "mtable":
        return r"\begin{matrix} " + r" \\ ".join(parts) + r" \end{matrix}"
    if tag in ("mtr", "mlabeledtr"):
        return " & ".join(parts)
    return " ".join(part for part in parts if part)  # math, mrow, mstyle, mtd, mpadded, merror, …


def _group(tex: str) -> str:
    """``tex`` as one base for a script: braced unless it is one symbol."""
    return tex if len(tex) == 1 or re.fullmatch(r"\\[A-Za-z]+|\w", tex) else f"{{{tex}}}"
