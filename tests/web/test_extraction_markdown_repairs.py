"""trafilatura's Markdown repaired: a table without header cells gets its delimiter row, a code fence
run into a line of text gets a line of its own, and the page source's indentation goes."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.markdown_repairs import (
    complete_tables,
    fences_on_own_lines,
    source_indents_dropped,
    tidied,
)

PROSE = "Electricians charge by the hour, and the rate depends on experience and on the region. " * 8


def test_a_delimiter_row_goes_under_the_first_row_of_a_bare_table() -> None:
    bare = "Rates:\n\n| **Level** | **Rate** |  | \n| Apprentice | $45 | evenings | \n"
    bare += "| Master | $120 |  | \n\nEnd."
    assert complete_tables(bare) == (
        "Rates:\n\n| **Level** | **Rate** |  | \n|---|---|---|\n| Apprentice | $45 | evenings | \n"
        "| Master | $120 |  | \n\nEnd."
    )
    whole = "| Name | Price |\n|:---|---:|\n| A | 1 |"
    assert complete_tables(whole) == whole  # already a table
    code = "```\n| a | b |\n| c | d |\n```"
    assert complete_tables(code) == code  # pipes in code are code
    assert complete_tables(r"| a \| b | c |" + "\n| 1 | 2 |") == r"| a \| b | c |" + "\n|---|---|\n| 1 | 2 |"


def test_lone_rows_and_spacer_tables_read_as_a_renderer_shows_them() -> None:
    # A box around a caption or a note (one row, one filled cell): a paragraph, not "| … |" text.
    assert complete_tables("Above.\n| Block diagram (datasheet) |  |\nBelow.") == (
        "Above.\n\nBlock diagram (datasheet)\n\nBelow."
    )
    assert complete_tables("| # 1 tip |") == "\n\\# 1 tip\n"  # no heading made of it
    # One row of several cells: a table of that row; rows of empty cells (a spacer): a blank line.
    assert complete_tables("| Note | Any branch. |") == "| Note | Any branch. |\n|---|---|"
    assert complete_tables("text\n|  |  |  |\n|  |  |  |\nmore") == "text\n\nmore"
    assert complete_tables("- item\n  | Inside the item |") == "- item\n\n  Inside the item\n"
    # The delimiter above the first row (trafilatura's, for an empty header row) goes under it.
    assert complete_tables("|---|---|\n| Price | $999 |\n| Lumens | 800 |") == (
        "| Price | $999 |\n|---|---|\n| Lumens | 800 |"
    )
    # "---" after a row is a rule, not the table's; a lone "|" is the page's own character.
    assert complete_tables("| a | b |\n---") == "| a | b |\n|---|---|\n---"
    assert complete_tables("Tim –\n|\n72 comments") == "Tim –\n|\n72 comments"


def test_a_page_table_without_th_cells_reads_as_a_table_in_markdown_and_html() -> None:
    table = (
        "<table><tr><td><b>Experience level</b></td><td><b>Hourly rate</b></td></tr>"
        "<tr><td>Apprentice</td><td>$45–$70</td></tr><tr><td>Journeyman</td><td>$80–$130</td></tr>"
        "<tr><td>Master</td><td>$120–$200</td></tr></table>"
    )
    page = f"<html><body><article><h1>Rates</h1><p>{PROSE}</p>{table}<p>{PROSE}</p></article></body></html>"
    url = "https://blog.example.org/2025/electrician-rates"
    markdown = content.convert(page, "text/html", url=url).content
    assert "Hourly rate** |\n|---|---|\n| Apprentice" in markdown
    html = content.convert(page, "text/html", url=url, format="html").content
    assert "<table>" in html and "<td>Apprentice</td>" in html


def test_a_fence_run_into_a_line_of_text_gets_its_own_line() -> None:
    markdown = "\n".join(
        [
            "- **cache**: an unbounded cache. For example: ```",
            "@cache",
            "def factorial(n):",
            "```",
            "Then text. The ```",
            "summary phrase",
            "``` should not be a filename.",  # the closing fence, then text
            "Sudo: ```",
            "/etc/sudoers.d/10-timestamp```",  # code, then the closing fence
            "- Run: ``` pip install flask ```",  # a one-line code span: both fences on the line
            "> ```",
            "> quoted code",
            "> ```",
            "```python",
            "x = 1 # a ``` in a comment is code```",
        ]
    )
    assert fences_on_own_lines(markdown).split("\n") == [
        "- **cache**: an unbounded cache. For example:",
        "```",
        "@cache",
        "def factorial(n):",
        "```",
        "Then text. The",
        "```",
        "summary phrase",
        "```",
        "should not be a filename.",
        "Sudo:",
        "```",
        "/etc/sudoers.d/10-timestamp",
        "```",
        "- Run: ``` pip install flask ```",
        "> ```",
        "> quoted code",
        "> ```",
        "```python",
        "x = 1 # a ``` in a comment is code",
        "```",
    ]
    assert fences_on_own_lines("no fences here") == "no fences here"


def test_a_code_block_in_a_definition_reads_as_code_and_the_prose_after_it_as_prose() -> None:
    listing = "<pre>@cache\ndef factorial(n):\n    return n * factorial(n-1) if n else 1\n</pre>"
    entry = (
        "<dl class='py function'><dt>@functools.cache(user_function)</dt><dd><p>Simple lightweight "
        f"unbounded function cache.</p><p>For example:</p>{listing}</dd></dl>"
    )
    page = f"<html><body><main><h1>functools</h1><p>{PROSE}</p>{entry}<p>{PROSE}</p></main></body></html>"
    text = content.convert(page, "text/html", url="https://docs.example.org/3/library/functools.html").content
    assert "\n```\n@cache\ndef factorial(n):\n    return n * factorial(n-1) if n else 1\n```\n" in text


def test_the_page_sources_indentation_does_not_make_text_a_code_block() -> None:
    markdown = "\n".join(
        [
            "- ### Chocolate Hazelnut Coffee",
            "  Regular price $19.99",
            "            ",
            "        Sale price",  # eight spaces: an indented code block inside the item
            "1. ",  # a list item with nothing after its marker keeps its space
            "  - nested item",
            "    continuation of the nested item",
            "",
            "A paragraph",
            "      indented by the source",
            "1. step",
            "   ```",
            "    code keeps its indent",
            "   ```",
            "Reviews:",
            "\t\t\t\t- 70% of the reviews are positive",  # an item outside a list, tab-indented
            "  - nested",
            "              - far too deep",
        ]
    )
    assert source_indents_dropped(markdown).split("\n") == [
        "- ### Chocolate Hazelnut Coffee",
        "  Regular price $19.99",
        "",
        "  Sale price",
        "1. ",
        "  - nested item",
        "    continuation of the nested item",
        "",
        "A paragraph",
        "indented by the source",
        "1. step",
        "```",
        "    code keeps its indent",
        "```",
        "Reviews:",
        "- 70% of the reviews are positive",
        "  - nested",
        "    - far too deep",
    ]


def test_a_reading_is_tidied_outside_its_code() -> None:
    from hermes_nb.web.extraction.markdown_repairs import tidied

    markdown = (
        "Steps:\n\n1. \nOpen a prompt.  \n\n\n\n2.\nCreate a dir.\n-\n## Next"
        "\n\n```\n- \n\n\n   x  \n```\ntext   "
    )
    assert tidied(markdown) == (
        "Steps:\n\n1. Open a prompt.\n2. Create a dir.\n## Next\n\n```\n- \n\n\n   x  \n```\n\ntext"
    )


def test_a_headings_text_set_below_it_goes_back_into_it_and_an_empty_heading_goes() -> None:
    # <h3><div>1. Start …</div></h3>: trafilatura wrote "###" and the text as a paragraph below it.
    assert tidied("Intro.\n\n###\n\n1. Start with the easy stuff\n\nText.") == (
        "Intro.\n\n### 1. Start with the easy stuff\n\nText."
    )
    assert tidied("###\nStep 1: Position the monitor") == "### Step 1: Position the monitor"
    # Nothing that could be its text: it goes (another heading, a bullet, a fence, a long paragraph).
    assert tidied("##\n\n## Best budget earbuds") == "## Best budget earbuds"
    assert tidied("#\n\n- an item") == "- an item"
    assert tidied("####\n\n```\n# code\n```\n\nAfter.") == "```\n# code\n```\n\nAfter."
    long_text = " ".join(["word"] * 30)
    assert tidied(f"###\n\n{long_text}") == long_text
    assert tidied("Text.\n\n###") == "Text."
    assert tidied("One.\n\n\u200d\n\nTwo.") == "One.\n\nTwo."  # an empty paragraph of a site builder
    assert tidied("می\u200cخواهم") == "می\u200cخواهم"  # a joiner inside a word stays
    # A heading all in bold (<h3><strong>): the marks say nothing a heading does not.
    assert tidied("### **Information from other users**") == "### Information from other users"
    assert tidied("## **Plans** and **prices**") == "## **Plans** and **prices**"  # bold inside stays
    assert tidied("**Not a heading**") == "**Not a heading**"


def test_a_bracket_or_stop_set_on_a_line_of_its_own_goes_back_next_to_its_words() -> None:
    # A listing's cell: a link, then "(", the site's link, ")" each on a line of its own.
    row = "1. [Acme is hiring](https://acme.example)\n(\n[acme.example](https://news.example/from)\n)\n3 days"
    assert tidied(row) == (
        "1. [Acme is hiring](https://acme.example)\n([acme.example](https://news.example/from))\n3 days"
    )
    # A citation's closing stop, indented under its list item, and a greeting's "!".
    assert tidied('5. **^** ["Le 15 Mai"](https://films.example)\n   .\n6. Next') == (
        '5. **^** ["Le 15 Mai"](https://films.example).\n6. Next'
    )
    assert tidied("Hi\n!\nor") == "Hi!\nor"
    # A paragraph of only a stop: nothing to read. After code, a table row or a blank: never joined.
    assert tidied("View photo\n\n.\n\nVanessa Hicks") == "View photo\n\nVanessa Hicks"
    assert tidied("```\nx = (\n)\n```\n)") == "```\nx = (\n)\n```"
    assert tidied("| a | b |\n|---|---|\n| c | d |\n)") == "| a | b |\n|---|---|\n| c | d |\n)"
    # A lone "(" before a block or at the end stays as it was; "..." and "(see" are words' lines.
    assert tidied("(\n- item") == "(\n- item"
    assert tidied("end\n(") == "end\n("
    assert tidied("Wait\n...\nthen") == "Wait\n...\nthen"
    assert tidied("text\n(see below)") == "text\n(see below)"
