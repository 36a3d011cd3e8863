"""The video notebook keeps notebooks small: posters and links are stored, never the video bytes."""

from __future__ import annotations

import base64
import re

import nbformat
from paths import REPO

from hermes_nb.testing.fakes import video_clip

NOTEBOOK = REPO / "notebooks" / "10_video.ipynb"


def test_the_saved_video_notebook_holds_no_video_bytes() -> None:
    text = NOTEBOOK.read_text(encoding="utf-8")
    assert len(text) < 40_000  # three video cards and their posters: a few KB each
    head = base64.b64encode(video_clip()[:12]).decode("ascii")[:12]  # how an inline MP4 would start
    assert head not in text and "data:video/" not in text and "ftyp" not in text
    nb = nbformat.read(NOTEBOOK, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    pages = [o["data"].get("text/html", "") for o in outputs if o.get("output_type") == "execute_result"]
    cards = [page for page in pages if "hermes-nb-video" in page]
    assert len(cards) == 3
    for card in cards:
        assert re.search(r'<source src="hermes_nb_files/[^"]+\.mp4" type="video/mp4"/>', card)
        posters = re.findall(r'poster="data:image/jpeg;base64,([^"]+)"', card)
        assert len(posters) <= 1 and all(len(p) < 8_000 for p in posters)
