"""Formulas read as TeX (``$…$``, ``$$…$$``) from MathML, KaTeX, MathJax and Wikipedia's markup."""

from __future__ import annotations

import pytest

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.formulas import hold_formulas, restore_formulas
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, "
    "and it might act upon other things besides number, were objects found whose mutual relations could "
    "be expressed by those of the abstract science of operations. "
)
QUADRATIC = (
    "<math display='block'><mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi><mo>±</mo><msqrt><msup>"
    "<mi>b</mi><mn>2</mn></msup><mo>−</mo><mn>4</mn><mo>\u2062</mo><mi>a</mi><mi>c</mi></msqrt></mrow>"
    "<mrow><mn>2</mn><mi>a</mi></mrow></mfrac></math>"
)
KATEX_INLINE = (
    "<span class='katex'><span class='katex-mathml'><math><semantics><mrow><msub><mi>a</mi><mi>ij</mi></msub>"
    "</mrow><annotation encoding='application/x-tex'>a_{ij}^2</annotation></semantics></math></span>"
    "<span class='katex-html' aria-hidden='true'><span class='mord'>a</span><span class='msupsub'>ij2</span>"
    "</span></span>"
)
WIKIPEDIA_DISPLAY = (
    "<div class='mwe-math-element'><div class='mwe-math-mathml-display' style='display: none;'>"
    "<math display='block' alttext='{\\displaystyle \\langle w,Av\\rangle =\\langle Aw,v\\rangle ,}'>"
    "<mo>⟨</mo></math></div><img class='mwe-math-fallback-image-display' alt='{\\displaystyle \\langle "
    "w,Av\\rangle =\\langle Aw,v\\rangle ,}' src='x.svg'></div>"
)


def _read(body: str, fmt: str = "markdown") -> str:
    page = f"<html><head><title>T</title></head><body><article><h1>Notes</h1>{body}</article></body></html>"
    return convert(page, "text/html", url="https://example.org/notes", format=fmt).content


def test_mathml_without_tex_is_written_as_tex_from_its_structure() -> None:
    text = _read(f"<p>{PROSE}</p><p>The roots are</p>{QUADRATIC}<p>{PROSE}</p>")
    assert r"$$x = \frac{− b ± \sqrt{b^{2} − 4 a c}}{2 a}$$" in text
    assert "\u2062" not in text and "⟦" not in text


def test_the_pages_own_tex_is_read_where_it_has_one() -> None:
    katex = _read(f"<p>{PROSE} Each entry {KATEX_INLINE} is squared.</p><p>{PROSE}</p>")
    assert "Each entry $a_{ij}^2$ is squared." in katex and "ij2" not in katex  # not KaTeX's drawing
    wiki = _read(f"<p>{PROSE} It satisfies</p>{WIKIPEDIA_DISPLAY}<p>for any pair of vectors. {PROSE}</p>")
    assert "It satisfies\n\n$$\\langle w,Av\\rangle =\\langle Aw,v\\rangle ,$$\n\nfor any pair" in wiki
    assert "displaystyle" not in wiki
    mathjax2 = _read(
        f"<p>{PROSE} Energy <span class='MathJax_Preview'>E=mc2</span><span class='MathJax'>E = m c 2</span>"
        f"<script type='math/tex'>E = mc^2</script> is conserved.</p><p>{PROSE}</p>"
    )
    assert "Energy $E = mc^2$ is conserved." in mathjax2 and "m c 2" not in mathjax2


def test_text_and_html_formats_keep_the_tex_as_it_is() -> None:
    body = (
        f"<p>{PROSE}</p><p>Entries <math alttext='a_{{ij}} = \\overline{{a_{{ji}}}} \\\\ b'><mi>a</mi></math>"
        f" cost $5 and <b>$10</b> in *stars*.</p><p>{PROSE}</p>"
    )
    text = _read(body, "text")
    assert r"Entries $a_{ij} = \overline{a_{ji}} \\ b$ cost $5 and $10 in *stars*." in text
    html = _read(body, "html")
    assert r'<span class="math">$a_{ij} = \overline{a_{ji}} \\ b$</span>' in html
    assert "<strong>$10</strong>" in html


@pytest.mark.parametrize("body", [f"<p>{PROSE}</p><p>Costs $5 and $10.</p>", f"<p>{PROSE}</p>"])
def test_a_page_without_formulas_is_read_as_before(body: str) -> None:
    root = parse_html(f"<html><body>{body}</body></html>")
    assert hold_formulas(root) == []
    assert restore_formulas("Costs $5 and $10.", []) == "Costs $5 and $10."
    doc = convert(f"<html><body><article>{body}</article></body></html>", "text/html", url="https://e.org/")
    assert "formulas_read_as_tex" not in doc.metadata


def test_the_count_of_formulas_is_in_the_metadata() -> None:
    page = f"<html><body><article><p>{PROSE} Each {KATEX_INLINE}.</p>{QUADRATIC}</article></body></html>"
    assert convert(page, "text/html", url="https://e.org/").metadata["formulas_read_as_tex"] == 2


def test_the_notebook_card_keeps_a_formula_whole_for_mathjax() -> None:
    from hermes_nb.notebook.markdown import markdown_to_html as card_html

    html = card_html("Let $A^* = B^*$ hold, *x* costs $5 and $10.")
    assert '<span class="math">$A^* = B^*$</span>' in html and "<em>x</em>" in html and "$5 and $10" in html
