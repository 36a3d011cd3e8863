"""hn.index: every file type, BM25 ranking with highlighted snippets, incremental re-indexing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

import hermes_nb as hn
from hermes_nb import errors, store
from hermes_nb.testing import Emulator


def _notebook(path: Path) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Orbital mechanics notes\n", "Kepler laws."]},
        {
            "cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["print(period)"],
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["heliocentric period computed\n"]},
                {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                 "data": {"text/plain": ["'perihelion precession'"]}},
            ],
        },
    ]  # fmt: skip
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "telescopes.md").write_text("# Telescopes\n\nA refractor bends light; reflectors use mirrors.\n")
    (root / "mirrors.txt").write_text("Mirror grinding for amateur telescopes is a patient craft.\n")
    (root / "sub" / "page.html").write_text(
        "<html><head><title>Star charts</title><script>var telescopes=1</script></head>"
        "<body><p>Charts of the night sky &amp; constellations.</p></body></html>"
    )
    (root / "tool.py").write_text('"""Compute ephemerides for comets."""\n\ndef ephemeris():\n    return 1\n')
    _notebook(root / "orbits.ipynb")
    (root / "ignored.csv").write_text("telescopes,1\n")
    return root


def test_every_type_is_indexed_and_searchable(corpus: Path) -> None:
    with Emulator(seed=0) as emu:
        (corpus / "paper.pdf").write_bytes(httpx.get(emu.page_url("/site/paper.pdf")).content)
    counts = hn.index(corpus)
    assert counts == {"indexed": 6, "unchanged": 0, "skipped": 0, "removed": 0}
    db = store.get_store()
    assert db.search_pages("constellations")[0].title == "Star charts"
    assert db.search_pages("perihelion")[0].title == "Orbital mechanics notes"  # a notebook output
    assert db.search_pages("heliocentric")[0].url.endswith("orbits.ipynb")
    assert db.search_pages("ephemerides")[0].title == "Compute ephemerides for comets."
    assert db.search_pages("deterministic")[0].title == "Emulated paper"  # the PDF
    assert db.search_pages("var") == []  # scripts are not text


def test_bm25_ranks_and_highlights(corpus: Path) -> None:
    hn.index(corpus, glob=["*.md", "*.txt"])
    hits = store.get_store().search_pages("telescopes")
    assert [Path(h.url).name for h in hits] == ["telescopes.md", "mirrors.txt"]  # the title match first
    assert "**telescopes**" in hits[1].highlight and "**" not in hits[1].description
    found = hn.search("mirror grinding", backend="local")
    assert found.provider == "local" and found.hits[0].url.endswith("mirrors.txt")


def test_reindexing_is_incremental(corpus: Path) -> None:
    hn.index(corpus, glob="*.md")
    assert hn.index(corpus, glob="*.md") == {"indexed": 0, "unchanged": 1, "skipped": 0, "removed": 0}
    note = corpus / "telescopes.md"
    stat = note.stat()
    os.utime(note, (stat.st_atime, stat.st_mtime + 10))  # touched, same bytes: hashed, not re-indexed
    assert hn.index(corpus, glob="*.md")["unchanged"] == 1
    note.write_text("# Telescopes\n\nNow about dobsonians.\n")
    assert hn.index(corpus, glob="*.md")["indexed"] == 1
    db = store.get_store()
    assert db.search_pages("dobsonians") and db.search_pages("refractor") == []
    note.unlink()
    assert hn.index(corpus, glob="*.md")["removed"] == 1
    assert db.search_pages("dobsonians") == []


def test_unreadable_files_are_skipped_and_bad_paths_refused(corpus: Path, tmp_path: Path) -> None:
    (corpus / "broken.ipynb").write_text("{not json")
    counts = hn.index(corpus, glob="*.ipynb")
    assert counts["indexed"] == 1 and counts["skipped"] == 1
    with pytest.raises(errors.InvalidInputError, match="not a directory"):
        hn.index(tmp_path / "missing")


def test_an_html_file_reads_in_the_index_as_it_does_in_extract(tmp_path: Path) -> None:
    page = tmp_path / "guide.html"
    body = "".join(f"<p>Paragraph {i} about refracting telescopes and their lenses.</p>" for i in range(12))
    page.write_text(
        "<html><head><title>Lens guide</title></head><body><nav><a href='/'>Home</a> | <a href='/x'>Shop"
        f"</a></nav><article><h1>Lens guide</h1>{body}</article><footer>© Shop footer</footer></body></html>"
    )
    hn.index(tmp_path)
    (hit,) = store.get_store().search_pages("refracting")
    extracted = hn.extract(page, no_cache=True).pages[0]
    assert hit.title == extracted.title == "Lens guide"
    assert "<" not in hit.description and "<" not in extracted.content
    for word in ("footer", "Shop", "Home", "lenses"):  # kept or left out alike: one converter
        assert bool(store.get_store().search_pages(word)) == (word in extracted.content), word
