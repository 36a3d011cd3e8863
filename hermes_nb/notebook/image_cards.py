"""Generated images and galleries as cards: an embedded thumbnail, a link to the full file, provenance."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb.notebook._html import (
    BADGE,
    BOX,
    CARD,
    MUTED,
    cache_note,
    esc,
    link_html,
    options,
    provenance_html,
    shorten,
    thumb_px,
)

# --------------------------------------------------------------------------- images


def thumbnail_bytes(path: str | os.PathLike[str], max_px: int = 256) -> tuple[bytes, str, tuple[int, int]]:
    """A JPEG thumbnail (longest edge ≤ ``max_px``) of the image at ``path``: (bytes, mime, size)."""
    from PIL import Image

    with Image.open(path) as source:
        source.thumbnail((max_px, max_px))
        thumb: Image.Image = source
        if source.mode not in ("RGB", "L"):
            # JPEG has no alpha: flatten onto white so transparent areas do not turn black.
            rgba = source.convert("RGBA")
            thumb = Image.new("RGB", rgba.size, (255, 255, 255))
            thumb.paste(rgba, mask=rgba.getchannel("A"))
        buf = io.BytesIO()
        thumb.save(buf, format="JPEG", quality=80, optimize=True)
        return buf.getvalue(), "image/jpeg", thumb.size


def _file_facts(path: Path) -> tuple[str, str]:
    """(short sha256, "WxH") of an image file, or placeholders when it is gone."""
    import hashlib

    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    except OSError:
        return "missing", "?x?"
    try:
        from PIL import Image

        with Image.open(path) as img:
            return digest, f"{img.width}x{img.height}"
    except Exception:
        return digest, "?x?"


def file_href(path: Path) -> str:
    """A link to the full file that a browser opens from the notebook: always relative when it can be.

    Browsers refuse ``file://`` links from a served page, so a file outside the notebook's folder
    (the image cache) is hard-linked — copied when it cannot be — into ``display.files_dir`` beside
    the notebook, and linked relatively: JupyterLab, Notebook and VS Code resolve such a link
    against the notebook, and it keeps working when the notebook is shared with that folder.
    """
    try:
        full, here = path.resolve(), Path.cwd().resolve()
        if full.is_relative_to(here):
            return full.relative_to(here).as_posix()
        folder = str(config.get("display.files_dir", "hermes_nb_files") or "").strip()
        if not folder or not full.is_file():
            return full.as_uri()
        beside = here / folder / full.name
        if not (beside.is_file() and beside.stat().st_size == full.stat().st_size):
            _place(full, beside)
        return beside.relative_to(here).as_posix()
    except (OSError, ValueError):
        return path.as_posix()


def _place(source: Path, target: Path) -> None:
    """``source`` at ``target``: a hard link, else a copy written under a temporary name first."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        os.link(source, partial)
    except OSError:
        shutil.copyfile(source, partial)
    os.replace(partial, target)


def _image_text(img: Any) -> str:
    sha, width, height = getattr(img, "sha256", ""), getattr(img, "width", 0), getattr(img, "height", 0)
    digest, size = (sha[:12], f"{width}x{height}") if sha and width else _file_facts(Path(img.path))
    return (
        f"ImageResult(provider={img.provider!r}, model={getattr(img, 'model', None)!r}, "
        f"aspect_ratio={getattr(img, 'aspect_ratio', None)!r}, seed={getattr(img, 'seed', None)!r}, "
        f"{size}, sha256={digest})" + (" from the cache" if getattr(img, "cached", False) else "")
    ) + "".join(f"\nnote: {note}" for note in getattr(img, "notes", None) or [])


def _image_card(img: Any) -> str:
    path = Path(img.path)
    href = file_href(path)
    embed = options["embed"]
    alt = shorten(getattr(img, "prompt", "") or "", 200)
    picture = ""
    if embed in ("thumb", "full") and path.exists():
        if embed == "thumb":
            data, mime, (w, h) = thumbnail_bytes(path, thumb_px())
        else:
            suffix = path.suffix.lstrip(".").lower().replace("jpg", "jpeg") or "png"
            data, mime = path.read_bytes(), f"image/{suffix}"
            w = h = 0
        size = f' width="{w}" height="{h}"' if w else ' style="max-width:100%"'
        import base64

        src = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        picture = f'<a href="{esc(href)}" target="_blank"><img src="{src}" alt="{esc(alt)}"{size}/></a>'
    elif not path.exists():
        picture = f'<div style="{MUTED}">image file is missing</div>'
    cost = getattr(img, "cost", None) or {}
    cost_text = ""
    if cost.get("usd") is not None:
        cost_text = f"{'~' if cost.get('estimated') else ''}${float(cost['usd']):.3f}"
    revised = getattr(img, "revised_prompt", None)
    caption = provenance_html(
        f'<span style="{BADGE}">{esc(img.provider)}</span>',
        esc(getattr(img, "model", None) or ""),
        f"seed {esc(img.seed)}" if getattr(img, "seed", None) is not None else "",
        cost_text,
        esc(cache_note(img)),
        link_html(href, "full size"),
        duration=getattr(img, "duration_s", None),
    )
    revised_html = f'<div style="{MUTED}">revised prompt: {esc(revised)}</div>' if revised else ""
    notes = getattr(img, "notes", None) or []
    revised_html += "".join(f'<div style="{MUTED}">ℹ️ {esc(note)}</div>' for note in notes)
    return (
        f'<figure style="{CARD};display:inline-block;vertical-align:top;max-width:100%">{picture}'
        f'<figcaption style="max-width:{max(thumb_px(), 256)}px"><div>{esc(shorten(alt, 160))}</div>'
        f"{revised_html}{caption}</figcaption></figure>"
    )


def _image_html(img: Any) -> str:
    return f'<div class="hermes-nb hermes-nb-image" style="{BOX}">{_image_card(img)}</div>'


def _gallery_text(gallery: Any) -> str:
    items = list(gallery)
    lines = [f"ImageGallery(n={len(items)})"]
    lines += [f"  [{i}] {_image_text(img)}" for i, img in enumerate(items)]
    return "\n".join(lines)


def _gallery_html(gallery: Any) -> str:
    cards = "".join(_image_card(img) for img in gallery)
    return (
        f'<div class="hermes-nb hermes-nb-gallery" style="{BOX};display:flex;flex-wrap:wrap;gap:8px">'
        f"{cards}</div>"
    )


