"""Generated videos as cards: a poster frame (a few KB), a ``<video controls>`` linking the file, provenance.

The video itself never goes into the notebook: the element's ``src`` is a relative link into
``display.files_dir`` (``hermes_nb_files/`` beside the notebook, the rule full-size images follow),
and the poster — the file's first frame as a small JPEG, or the provider's thumbnail — is the only
embedded picture. Without a poster (no ``video`` extra) the card says so and still links the file.
``text/plain`` is deterministic: no path, no timestamp, no duration of the call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_nb.notebook._html import (
    BADGE,
    BOX,
    CARD,
    MUTED,
    cache_note,
    esc,
    link_html,
    provenance_html,
    shorten,
)
from hermes_nb.notebook.image_cards import file_href

__all__ = ["video_text", "video_html"]


def _facts(video: Any) -> str:
    width, height = getattr(video, "width", 0), getattr(video, "height", 0)
    size = f"{width}x{height}" if width else str(getattr(video, "resolution", "") or "?")
    length = getattr(video, "length_s", 0.0) or 0.0
    seconds = f"{length:g}s" if length else f"{getattr(video, 'duration', None) or '?'}s"
    return f"{seconds}, {size}"


def video_text(video: Any) -> str:
    """``VideoResult(provider=…, model=…, 4s, 1280x720, seed=None, sha256=…)`` [from the cache]."""
    sha = str(getattr(video, "sha256", "") or "")[:12] or "missing"
    text = (
        f"VideoResult(provider={video.provider!r}, model={getattr(video, 'model', None)!r}, "
        f"{_facts(video)}, seed={getattr(video, 'seed', None)!r}, sha256={sha})"
    )
    if getattr(video, "cached", False):
        text += " from the cache"
    return text + "".join(f"\nnote: {note}" for note in getattr(video, "notes", None) or [])


def video_html(video: Any) -> str:
    path = Path(video.path)
    prompt = str(getattr(video, "prompt", "") or "")
    if path.is_file():
        href = file_href(path)
        poster = video.poster_data_uri() if hasattr(video, "poster_data_uri") else None
        poster_attr = f' poster="{poster}"' if poster else ""
        mime = {"webm": "video/webm", "mov": "video/quicktime", "mkv": "video/x-matroska"}.get(
            str(getattr(video, "format", "mp4")), "video/mp4"
        )
        player = (
            f'<video controls preload="none" width="{max(int(getattr(video, "width", 0) or 0), 320)}" '
            f'style="max-width:100%"{poster_attr} title="{esc(shorten(prompt, 200))}">'
            f'<source src="{esc(href)}" type="{mime}"/>{link_html(href, "download the video")}</video>'
        )
        if not poster:
            player += f"<div style=\"{MUTED}\">no poster frame (pip install 'hermes_nb[video]')</div>"
    else:
        href = ""
        player = f'<div style="{MUTED}">video file is missing</div>'
    cost = getattr(video, "cost", None) or {}
    cost_text = (
        f"{'~' if cost.get('estimated') else ''}${float(cost['usd']):.3f}"
        if cost.get("usd") is not None
        else ""
    )
    caption = provenance_html(
        f'<span style="{BADGE}">{esc(video.provider)}</span>',
        esc(getattr(video, "model", None) or ""),
        esc(_facts(video)),
        f"seed {esc(video.seed)}" if getattr(video, "seed", None) is not None else "",
        "from an image" if getattr(video, "image", None) else "",
        cost_text,
        esc(cache_note(video)),
        link_html(href, "file") if href else "",
        duration=getattr(video, "duration_s", None),
    )
    notes = "".join(
        f'<div style="{MUTED}">ℹ️ {esc(note)}</div>' for note in getattr(video, "notes", None) or []
    )
    return (
        f'<div class="hermes-nb hermes-nb-video" style="{BOX}"><figure style="{CARD};display:inline-block;'
        f'max-width:100%">{player}<figcaption><div>{esc(shorten(prompt, 160))}</div>{notes}{caption}'
        "</figcaption></figure></div>"
    )
