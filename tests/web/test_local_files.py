"""Local files in hn.extract and %web_extract: the same converters as fetched pages, never the LLM tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_nb import tools, web
from hermes_nb.web import local_files


def _pdf(path: Path) -> Path:
    from PIL import Image

    # Pillow writes a real (image-only) PDF; pypdf reads it back without text, which is enough to
    # prove the PDF converter ran. The text case is covered by the Markdown and HTML files below.
    Image.new("RGB", (40, 40), "white").save(path, "PDF")
    return path


def test_markdown_html_and_csv_files_are_converted(tmp_path: Path) -> None:
    md = tmp_path / "notes.md"
    md.write_text("# Field notes\n\nThe heron came back.\n", encoding="utf-8")
    page = tmp_path / "page.html"
    page.write_text(
        "<html><head><title>Report</title></head><body><article><h1>Report</h1>"
        + "<p>The quarterly numbers went up, as the long paragraph explains in detail.</p>" * 5
        + "</article></body></html>",
        encoding="utf-8",
    )
    table = tmp_path / "data.csv"
    table.write_text("name,count\nheron,3\negret,5\n", encoding="utf-8")
    result = web.extract([md, page, table])
    assert [p.error for p in result] == [None, None, None]
    assert result[0].title == "Field notes" and "heron came back" in result[0].content
    assert "quarterly numbers" in result[1].content and "<p>" not in result[1].content
    assert "| heron | 3 |" in result[2].content.replace("  ", " ")
    assert result.provider == local_files.PROVIDER and result[0].url == md.resolve().as_uri()


def test_files_and_urls_keep_input_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    md = tmp_path / "a.md"
    md.write_text("# A\n\ntext\n", encoding="utf-8")
    seen: list[list[str]] = []

    def remote(urls: list[str]) -> web.results.ExtractResult:
        seen.append(urls)
        return web.results.ExtractResult(
            pages=[web.results.Page(url=u, title="remote") for u in urls], provider="fake"
        )

    result = local_files.extract_mixed(["https://x.test/1", md, "https://x.test/2"], remote)
    assert seen == [["https://x.test/1", "https://x.test/2"]]
    assert [p.title for p in result] == ["remote", "A", "remote"] and result.provider == "fake+local-file"


def test_missing_unsupported_and_pdf_files_are_per_file_answers(tmp_path: Path) -> None:
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    pdf = _pdf(tmp_path / "scan.pdf")
    result = web.extract([tmp_path / "nope.md", binary, pdf])
    assert result[0].error_code == "INVALID_INPUT" and "no such file" in (result[0].error or "")
    assert result[1].error_code == "CONTENT_FETCH_FAILED" and "not supported" in (result[1].error or "")
    assert result[2].error is None and result[2].metadata.get("content_type") == "application/pdf"


def test_strings_stay_urls_so_the_llm_tool_cannot_read_files(tmp_path: Path) -> None:
    secret = tmp_path / "notes.md"
    secret.write_text("# private\n", encoding="utf-8")
    for given in (str(secret), secret.as_uri()):
        out = tools.call("web_extract", {"urls": [given]})
        text = json.dumps(out)
        assert "private" not in text and ("error" in text or "INVALID_INPUT" in text)


def test_web_extract_magic_reads_a_relative_path(tmp_path: Path) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    (tmp_path / "report.md").write_text("# Quarterly report\n\nAll good.\n", encoding="utf-8")
    shell = InteractiveShell.instance()
    shell.history_manager.enabled = False
    shell.extension_manager.load_extension("hermes_nb")
    try:
        result = shell.run_line_magic("web_extract", "./report.md")
    finally:
        shell.extension_manager.unload_extension("hermes_nb")
    assert result[0].title == "Quarterly report" and "All good." in result[0].content


@pytest.mark.parametrize(
    ("meta", "encoding", "words"),
    [
        # Windows-31J characters (circled digits, the wave dash, 髙) that strict Shift_JIS lacks.
        ("shift_jis", "cp932", "①番の髙橋さん～"),
        ("gb2312", "gbk", "镕铖的数据"),  # GBK characters beyond GB2312
        ("utf-16", "utf-8", "naïve café"),  # a <meta> claiming UTF-16 in bytes readable as ASCII
    ],
)
def test_a_file_is_decoded_as_a_browser_reads_its_meta_charset(
    tmp_path: Path, meta: str, encoding: str, words: str
) -> None:
    page = tmp_path / "page.html"
    body = (f"<html><head><meta charset='{meta}'><title>T</title></head><body><article>"
            + f"<p>{words} - this paragraph is long enough to be read as the page's text.</p>" * 3
            + "</article></body></html>")
    page.write_bytes(body.encode(encoding))
    [got] = web.extract([page])
    assert got.error is None and words in got.content and "\ufffd" not in got.content


FIGURE = "![A grey heron](https://img.example.org/heron.jpg)"  # only web addresses: never file:// ones


def _report_with_a_figure(tmp_path: Path) -> Path:
    """An HTML file with a picture between paragraphs on herons and paragraphs on egrets."""
    herons = "".join(f"<p>Paragraph {n} of the report on herons, which goes on to be read.</p>" for n in "ab")
    egrets = herons.replace("herons", "egrets").replace("Paragraph", "Section")
    figure = '<img src="https://img.example.org/heron.jpg" alt="A grey heron" width="600" height="400">'
    page = tmp_path / "page.html"
    page.write_text(f"<html><body><article><h1>Report</h1>{herons}{figure}{egrets}</article></body></html>")
    return page


def test_an_html_files_figures_are_kept_when_asked_for(tmp_path: Path) -> None:
    page = _report_with_a_figure(tmp_path)
    assert FIGURE not in web.extract(page)[0].content
    assert FIGURE in web.extract(page, images=True)[0].content


def test_magic_images_options(tmp_path: Path) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    from hermes_nb import config

    page = _report_with_a_figure(tmp_path)
    shell = InteractiveShell.instance()
    shell.history_manager.enabled = False
    shell.extension_manager.load_extension("hermes_nb")
    try:
        shown = shell.run_line_magic("web_extract", f"--images {page}")[0].content
        config.set("web.extract.images", True)
        left_out = shell.run_line_magic("web_extract", f"--no-images {page}")[0].content
    finally:
        shell.extension_manager.unload_extension("hermes_nb")
    assert FIGURE in shown
    assert "![" not in left_out and "egrets" in left_out
