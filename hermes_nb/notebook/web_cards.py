"""Search results, extracted pages and crawls as escaped static HTML and deterministic ``text/plain``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_nb.notebook._html import (
    BADGE,
    BOX,
    CARD,
    HEAD,
    MUTED,
    RANK,
    attempts_text,
    cache_note,
    domain_of,
    esc,
    fallback_text,
    link_html,
    max_results,
    options,
    provenance_html,
    shorten,
)
from hermes_nb.notebook.markdown import markdown_to_html
from hermes_nb.web.longtext import cut_head
from hermes_nb.web.results import first_heading

# --------------------------------------------------------------------------- search

_MODEL_MARK = "model-generated"  # hits whose metadata says a model chose them (xAI's citations)
_MODEL_TIP = "a model chose this result: it may be wrong; check the page"


def _search_text(res: Any) -> str:
    hits = list(getattr(res, "hits", []) or [])
    head = f"SearchResult(query={res.query!r}, provider={res.provider!r}, hits={len(hits)})"
    shown = hits[: max_results()]
    lines = [head + (f" {cache_note(res, when=False)}" if res.cached else "")]
    for hit in shown:
        mark = f" [{_MODEL_MARK}]" if getattr(hit, "model_generated", False) else ""
        lines.append(f"{hit.position:>3}. {shorten(hit.title, 90)}{mark}")
        lines.append(f"     {hit.url}")
    if len(hits) > len(shown):
        lines.append(f"     … and {len(hits) - len(shown)} more (r.hits, r.to_pandas())")
    lines += [f"note: {note}" for note in getattr(res, "warnings", None) or []]
    return "\n".join(lines)


def _search_html(res: Any) -> str:
    hits = list(getattr(res, "hits", []) or [])
    shown = hits[: max_results()]
    cards = []
    for hit in shown:
        domain = getattr(hit, "domain", None) or domain_of(hit.url)
        by_model = getattr(hit, "model_generated", False)
        badge = f' <span style="{BADGE}" title="{_MODEL_TIP}">{_MODEL_MARK}</span>' if by_model else ""
        cards.append(
            f'<li style="{CARD}"><span style="{RANK}">{int(hit.position)}</span>'
            f"{link_html(hit.url, hit.title or hit.url)}{badge}"
            f'<div style="{MUTED}">{esc(domain)}</div>'
            f'<div style="margin-top:2px">{esc(shorten(hit.description, 400))}</div></li>'
        )
    hidden = len(hits) - len(shown)
    more = f'<div style="{MUTED}">… and {hidden} more</div>' if hidden > 0 else ""
    empty = f'<div style="{MUTED}">no results</div>' if not hits else ""
    notes = "".join(f'<div style="{MUTED}">ℹ️ {esc(n)}</div>' for n in getattr(res, "warnings", None) or [])
    badges = f'<span style="{BADGE}">{esc(res.provider)}</span>'
    if getattr(res, "cached", False):
        badges += f' <span style="{BADGE}" title="{esc(cache_note(res))}">cached</span>'
    tried = attempts_text(getattr(res, "attempts", []))
    why = fallback_text(getattr(res, "attempts", []), res.provider)
    return (
        f'<div class="hermes-nb hermes-nb-search" style="{BOX}">'
        f'<div style="{HEAD}">🔎 {esc(res.query)} {badges}</div>'
        f'<ol style="list-style:none;padding:0;margin:0">{"".join(cards)}</ol>{more}{empty}{notes}'
        + provenance_html(
            f"{len(hits)} result(s) from {esc(res.provider)}",
            f"tried {esc(tried)}" if tried and "→" in tried else "",
            esc(why),
            esc(cache_note(res)),
            duration=getattr(res, "duration_s", None),
        )
        + "</div>"
    )


# --------------------------------------------------------------------------- pages


def _page_text(page: Any) -> str:
    if getattr(page, "error", None):
        return f"  ! {page.url}: {getattr(page, 'error_code', None) or 'ERROR'}: {shorten(page.error, 160)}"
    total = getattr(page, "total_chars", 0) or len(page.content or "")
    flag = ", truncated" if getattr(page, "truncated", False) else ""
    label = f"{shorten(page.title, 80)} ({page.url})" if page.title else page.url
    empty = _why_empty(page)
    if empty:
        return f"  - {label}: {total} chars{flag} [{empty}]"
    doubt = _confidence_note(page)
    return f"  - {label}: {total} chars{flag}" + (f" [{doubt}: check the text]" if doubt else "")


#: What a card says of a page whose scripts render its text (an application shell: the HTML holds none).
SCRIPT_RENDERED = "no text in the page's HTML: its scripts render it (web.jina_fallback reads it rendered)"


def _why_empty(page: Any) -> str:
    """Why a page's HTML holds no text of its own (scripts render it; a frameset's frames hold it), or ""."""
    meta = getattr(page, "metadata", None) or {}
    if meta.get("rendered_by_scripts"):
        return SCRIPT_RENDERED
    frames = meta.get("frames")
    if frames and isinstance(frames, list):
        shown = ", ".join(str(f) for f in frames[:3]) + (", …" if len(frames) > 3 else "")
        return f"a frameset: its text is in its frames; extract those ({shown})"
    return ""


def _confidence_note(page: Any) -> str:
    """``"low extraction confidence 0.32 (listing, readability)"`` for doubtful pages, else ``""``.

    The extractor marks ``low_confidence`` itself, against the user's ``web.extract.min_confidence``.
    """
    meta = getattr(page, "metadata", None) or {}
    score = meta.get("confidence")
    if not meta.get("low_confidence") or not isinstance(score, (int, float)):
        return ""
    how = ", ".join(str(meta[k]) for k in ("page_type", "extractor") if meta.get(k))
    return f"low extraction confidence {score:.2f}" + (f" ({how})" if how else "")


def _preview(content: str, limit: int) -> str:
    """The first ``limit`` characters of a page, ending at a line's end when one is in their second
    half: a link, a table row or a code fence cut through shows as its raw Markdown."""
    if len(content) <= limit:
        return content
    return cut_head(content, limit).removesuffix("\n")  # the cut Hermes makes of a long page's head


def _page_html(page: Any, *, open_: bool) -> str:
    title = page.title or first_heading(page.content) or page.url
    head = (
        f'<div style="{HEAD}">📄 {link_html(page.url, title)}</div>'
        f'<div style="{MUTED}">{esc(domain_of(page.url))}</div>'
    )
    if getattr(page, "error", None):
        code = getattr(page, "error_code", None) or "ERROR"
        return f'<div style="{CARD}">{head}<div>⚠️ <code>{esc(code)}</code> {esc(page.error)}</div></div>'
    content = page.content or ""
    limit = int(options["preview_chars"])
    preview = _preview(content, limit)
    body = markdown_to_html(preview)
    total = getattr(page, "total_chars", 0) or len(content)
    footer = []
    if len(preview) < len(content):
        shown = f"showing {len(preview):,} of {len(content):,} characters inline"
        footer.append(f"{shown} (page.content has them all)")
    if getattr(page, "truncated", False):
        where = getattr(page, "full_text_path", None)
        stored = f"; full text stored as {esc(Path(where).name)}" if where else ""
        footer.append(f"truncated: {len(content):,} of {total:,} characters kept{stored}")
    foot = f'<div style="{MUTED};margin-top:4px">✂️ {"; ".join(footer)}</div>' if footer else ""
    doubt = _confidence_note(page)
    empty = _why_empty(page)
    if empty:
        foot = f'<div style="margin-top:4px">⚠️ {esc(empty)}</div>' + foot
    elif doubt:
        warn = f"{esc(doubt)}: the text may be incomplete or include page clutter"
        foot = f'<div style="margin-top:4px">⚠️ {warn}</div>' + foot
    summary = f'<summary style="cursor:pointer;{MUTED}">{total:,} characters</summary>'
    return (
        f'<div style="{CARD}">{head}<details{" open" if open_ else ""}>{summary}'
        f'<div style="margin-top:4px">{body}</div></details>{foot}</div>'
    )


def _single_page_text(page: Any) -> str:
    return "Page\n" + _page_text(page)


def _single_page_html(page: Any) -> str:
    return f'<div class="hermes-nb hermes-nb-page" style="{BOX}">{_page_html(page, open_=True)}</div>'


def _extract_text(res: Any) -> str:
    pages = list(res.pages)
    note = f" {cache_note(res, when=False)}" if getattr(res, "cached", False) else ""
    lines = [f"ExtractResult(provider={res.provider!r}, pages={len(pages)}){note}"]
    lines += [_page_text(p) for p in pages]
    return "\n".join(lines)


def _extract_html(res: Any) -> str:
    pages = list(res.pages)
    cards = "".join(_page_html(p, open_=i == 0) for i, p in enumerate(pages))
    ok = sum(1 for p in pages if not getattr(p, "error", None))
    return (
        f'<div class="hermes-nb hermes-nb-extract" style="{BOX}">{cards}'
        + provenance_html(
            f"{ok} of {len(pages)} page(s) extracted by {esc(res.provider)}",
            esc(fallback_text(getattr(res, "attempts", []), res.provider)),
            esc(cache_note(res)),
            duration=getattr(res, "duration_s", None),
        )
        + "</div>"
    )


def _crawl_text(res: Any) -> str:
    pages = list(res.pages)
    note = f" {cache_note(res, when=False)}" if getattr(res, "cached", False) else ""
    lines = [f"CrawlResult(start_url={res.start_url!r}, provider={res.provider!r}, pages={len(pages)}){note}"]
    lines += [_page_text(p) for p in pages]
    return "\n".join(lines)


def _crawl_html(res: Any) -> str:
    pages = list(res.pages)
    cards = "".join(_page_html(p, open_=False) for p in pages)
    return (
        f'<div class="hermes-nb hermes-nb-crawl" style="{BOX}">'
        f'<div style="{HEAD}">🕸️ crawl of {link_html(res.start_url, res.start_url)}</div>{cards}'
        + provenance_html(
            f"{len(pages)} page(s) by {esc(res.provider)}",
            esc(fallback_text(getattr(res, "attempts", []), res.provider)),
            esc(cache_note(res)),
            duration=getattr(res, "duration_s", None),
        )
        + "</div>"
    )


