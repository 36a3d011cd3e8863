"""Preformatted blocks read as code blocks, line for line, however a page marks their lines up."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.preformatted import rewrite_preformatted
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The partial function freezes some of a function's arguments and returns a new callable with a "
    "simpler signature, which is handy when a callback must take fewer arguments than it needs. "
)
#: Sphinx's listing: highlighting spans straight in the <pre>, no <code> (the Python documentation).
SPHINX = (
    "<div class='highlight-python3 notranslate'><div class='highlight'><pre><span></span>"
    "<span class='k'>def</span> <span class='nf'>partial</span>(func, /, *args, **keywords):\n"
    "    <span class='k'>return</span> func(*args, **keywords)\n</pre></div></div>"
)
#: A listing drawn a <div> per line, with a copy button inside (Stripe's, Astro's).
LINES = (
    "<pre data-language='sh'><code><div class='ec-line'><span>curl</span><span> https://api.example.com</span>"
    "</div><div class='ec-line'><span>  -u key:</span></div></code><button>Copy</button></pre>"
)


def _code(fragment: str) -> str:
    root = parse_html(f"<html><body>{fragment}</body></html>")
    assert rewrite_preformatted(root) == 1
    pre = root.find(".//pre")
    assert [child.tag for child in pre] == ["code"]
    return str(pre[0].text)


def test_each_pre_becomes_one_code_of_its_lines() -> None:
    # The language the page names rides at the top until it goes on the fence (restore_code_languages).
    assert _code(SPHINX) == (
        "\u27e6code python3\u27e7\n"
        "def partial(func, /, *args, **keywords):\n    return func(*args, **keywords)\n"
    )
    assert _code(LINES) == "\u27e6code sh\u27e7\ncurl https://api.example.com\n  -u key:\n"
    assert _code("<pre>$ celery --help</pre>") == "$ celery --help\n"  # a block, not a code span
    assert _code("<pre>first<br>second<!-- a comment -->third</pre>") == "first\nsecondthird\n"
    # Control characters (a terminal's escape codes in a pasted log) go: lxml refuses them as text.
    assert _code("<pre>\x1b[32mPASSED\x1b[0m tests/test_app.py</pre>") == "[32mPASSED[0m tests/test_app.py\n"
    # A numbered listing (Hugo's chroma, Pygments): a table of a gutter of line numbers and the code.
    gutter = (
        "<div class='chroma'><table class='lntable'><tr><td class='lntd'><pre><span>1\n</span><span>2</span>"
        "</pre></td><td class='lntd'><pre><span>let a = 1;\n</span><span>let b = 2;</span></pre></td></tr>"
        "</table></div>"
    )
    assert _code(gutter) == "let a = 1;\nlet b = 2;\n"
    # A listing a one-row, one-cell table frames (WordPress's WP-Syntax), and one that is not framed.
    framed = "<div class='wp_syntax'><table><tbody><tr><td class='code'><pre>fetch(url);\nnext();</pre></td>"
    assert _code(framed + "</tr></tbody></table></div>") == "fetch(url);\nnext();\n"
    root = parse_html(f"<html><body>{framed}<td>Copy this</td></tr></tbody></table></div></body></html>")
    assert rewrite_preformatted(root) == 1 and root.find(".//table") is not None  # a cell of text: a table
    # Nothing for an empty one.
    assert rewrite_preformatted(parse_html("<html><body><pre> </pre><p>text</p></body></html>")) == 0


def test_line_spans_a_highlighter_draws_as_lines_are_lines() -> None:
    # Gatsby's highlighted lines and a Shiki build that leaves out the breaks between its line spans:
    # each span is a line of its own (the page's style sheet draws it as a block).
    gatsby = (
        "<pre class='language-jsx'><code>function Example() {\n"
        "<span class='gatsby-highlight-code-line'>  // Similar to componentDidMount:</span>"
        "<span class='gatsby-highlight-code-line'>  useEffect(() => {</span>"
        "<span class='gatsby-highlight-code-line'>    document.title = title;</span>"
        "<span class='gatsby-highlight-code-line'>  });</span>\n}\n</code></pre>"
    )
    assert _code(gatsby) == (
        "\u27e6code jsx\u27e7\nfunction Example() {\n  // Similar to componentDidMount:\n"
        "  useEffect(() => {\n    document.title = title;\n  });\n}\n"
    )
    shiki = (
        "<pre><code><span class='line'>npm create vite@latest app</span>"
        "<span class='line'>cd app</span></code></pre>"
    )
    assert _code(shiki) == "npm create vite@latest app\ncd app\n"
    # Where the markup writes the break after each line span, the span is inline: no blank lines.
    spaced = "<pre><code><span class='line'>a = 1</span>\n<span class='line'>b = 2</span>\n</code></pre>"
    assert _code(spaced) == "a = 1\nb = 2\n"
    # Line numbers and other spans named after lines are no lines of their own.
    numbered = (
        "<pre><code><span class='line-numbers'>1</span>x = 1\n<span class='lines'>y</span> = 2</code></pre>"
    )
    assert _code(numbered) == "1x = 1\ny = 2\n"


def test_a_documentation_page_keeps_its_listings_as_code_blocks_in_every_format() -> None:
    page = (
        "<html><head><title>functools</title></head><body><main><h1>functools</h1>"
        f"<p>{PROSE * 2}</p><p>Roughly equivalent to:</p>{SPHINX}<p>{PROSE}</p>"
        f"<p>Install it with:</p>{LINES}<p>{PROSE * 2}</p></main></body></html>"
    )
    url = "https://docs.example.org/3/library/functools.html"
    markdown = content.convert(page, "text/html", url=url).content
    listing = "def partial(func, /, *args, **keywords):\n    return func(*args, **keywords)"
    assert f"```python3\n{listing}\n```" in markdown
    assert "```sh\ncurl https://api.example.com\n  -u key:\n```" in markdown
    assert "Copy" not in markdown and "\\*" not in markdown
    text = content.convert(page, "text/html", url=url, format="text").content
    assert listing in text


def test_a_listings_language_goes_on_its_fence() -> None:
    from hermes_nb.web.extraction.preformatted import restore_code_languages

    listings = (
        "<pre><code class='language-python'>def f(x):\n    return x * 2\n</code></pre>"
        "<div class='highlight-bash notranslate'><div class='highlight'><pre><span></span>"
        "pip install x\n</pre></div></div>"
        "<div class='highlight highlight-source-shell'><pre>ls -l\n</pre></div>"
        "<pre class='brush: js;'>let a = 1;\n</pre>"
        "<div class='sourceCode'><pre class='sourceCode r'>x &lt;- 1\n"
        "</pre></div><pre data-lang='SQL'>select 1;\n</pre>"
        "<div class='highlight-default notranslate'><div class='highlight'><pre>x = 1\n</pre></div></div>"
        "<pre lang='en'>An English text, not code in a language.\n</pre>"
    )
    page = f"<html><body><article><h1>Guide</h1><p>{PROSE * 3}</p>{listings}<p>{PROSE}</p></article></body>"
    text = content.convert(page, "text/html", url="https://docs.example.org/guide").content
    fences = ("```python\ndef f", "```bash\npip install", "```shell\nls -l", "```js\nlet a", "```r\nx <-")
    fences += ("```sql\nselect 1;", "```\nx = 1", "```\nAn English text")  # no language: default, lang
    for fence in fences:
        assert fence in text, fence
    assert "\u27e6" not in text
    # A marker whose listing a reading wrote as a paragraph leaves no trace.
    assert restore_code_languages("Run \u27e6code sh\u27e7\nls -l now.") == "Run ls -l now."
