"""Which extraction steps hold out: each step or route switched off in turn, both parts of WCXB scored.

Run::

    python benchmarks/bench_extract_steps.py [--steps repeats,dialogs] [--split both|tune|heldout]
        [--every N] [--jobs 2]

For every step named in ``STEPS`` (all by default), the pages of the WCXB development split are
converted with that step switched off, and scored as ``bench_extract_quality.py`` scores them (word
F1 against the hand-reviewed text, ``convert(..., format="text")``). A step's *gain* is the mean F1
with it minus the mean F1 without it, on the tune part (and on each half of it, by odd and even file
id) and on the held-out part; *up / down* count the pages it raises / lowers by more than 0.005.

Decide on the tune part's halves; the held-out column says whether a gain transfers and is not for
tuning. A step is switched off by replacing, in the worker processes only, the name
``hermes_nb.web.extraction.pipeline`` calls it by with one that changes nothing, so the rest of the
pipeline runs as shipped (RESULTS.md, round 21, has a full run).
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import bench_extract_quality as quality

MOVED = 0.005  # a page counts as moved by a step when its F1 changes by more than this


def _zero(*_: Any, **__: Any) -> int:
    return 0


def _nothing(*_: Any, **__: Any) -> None:
    return None


def _unchanged(text: str, *_: Any, **__: Any) -> tuple[str, int]:
    return text, 0


class _Everything:
    """A set that holds every page type (a route switched off on all of them)."""

    def __contains__(self, _: object) -> bool:
        return True


#: Step name → the ``pipeline`` names replaced to switch it off, and what replaces them.
STEPS: dict[str, dict[str, Any]] = {
    # Routes: how the page type picks the readings.
    "page types": {"classify": lambda *_, **__: None},
    "sections repair": {"_NO_SECTIONS": _Everything()},
    "posts repair": {"post_elements": lambda *_, **__: []},
    "recall reading": {"_RECALL_TYPES": frozenset()},
    "second opinion": {"_SECOND_OPINION_TYPES": frozenset()},
    "next candidate": {"_NEXT": ()},
    "rescue pass skipped": {"_NO_RESCUE": frozenset()},
    "missed cards": {"_with_missed_cards": lambda _root, choice, _tried: choice},
    "product description": {"_with_product_description": lambda choice, _product: choice},
    "noscript copy": {"NOSCRIPT_REPAIR": (2.0, float("inf"))},
    # Steps on the tree before the readings.
    "screen-reader text": {"drop_screen_reader_text": _zero},
    "dialogs": {"drop_dialogs": _zero},
    "misnamed": {"unmask_misnamed": _zero},
    "product extras": {"drop_product_extras": _zero},
    "block links": {"open_block_links": _zero},
    "quoted posts": {"open_quoted_posts": _zero},
    "ruby": {"drop_ruby_annotations": _zero},
    "emoji images": {"emoji_as_text": _zero},
    "streamed": {"place_streamed": _zero},
    "templates": {"open_templates": lambda _root: (0, 0)},
    "unfilled expressions": {"drop_unfilled_expressions": _zero},
    "iframe text": {"drop_inline_frame_text": _zero},
    "mojibake": {"repair_mojibake_in_tree": _zero},
    "noscript markup": {"parse_noscript_markup": _zero},
    "note marks": {"bracket_note_marks": _zero},
    "tooltips": {"drop_tooltips": _zero},
    "heading controls": {"drop_heading_controls": _zero},
    "formulas": {"hold_formulas": lambda _root: []},
    "inline gaps": {"space_adjacent_inlines": _nothing},
    "code figures": {"open_code_figures": _zero},
    "preformatted": {"rewrite_preformatted": _nothing},
    "sectioned lists": {"unlist_sections": _nothing},
    "definition lists": {"pair_definitions": _nothing},
    "captions": {"captions_before_tables": _nothing},
    "source wrapping": {"unwrap_source_lines": _nothing},
    # Steps on the chosen reading.
    "repeats": {"drop_repeats": _unchanged, "drop_copied_sections": _unchanged},
    "identifier lines": {"drop_identifier_lines": _unchanged},
    "ad labels": {"drop_ad_labels": _unchanged},
    "control lines": {"drop_control_lines": _unchanged},
    "lost lists": {"restore_lists": _unchanged},
    "lost titles": {"restore_labels": _unchanged},
    "declared faq": {"restore_faq": _unchanged},
    "script notices": {"drop_script_notices": _unchanged},
    "markdown tidy-up": {"tidied": lambda text: text},
    "run-in headings": {"unflatten_headings": lambda text, _headings: (text, 0)},
    "title heading": {"drop_title_heading": _unchanged},
}


def switch_off(step: str) -> None:
    """Replace ``step``'s names in the pipeline module (in this process); '' leaves it as shipped."""
    from hermes_nb.web.extraction import pipeline

    for name, replacement in STEPS.get(step, {}).items():
        if not hasattr(pipeline, name):
            raise SystemExit(f"pipeline has no {name!r}: update STEPS[{step!r}] in {__file__}")
        setattr(pipeline, name, replacement)


def _f1(page: quality.Page) -> tuple[str, float]:
    want = Counter(quality.words(page.reference))
    got = Counter(quality.words(quality.ours(page.html, page.url)))
    return page.name, quality.prf(got, want)[2]


def scored(pages: list[quality.Page], step: str, jobs: int) -> dict[str, float]:
    """Each page's F1 with ``step`` switched off ('' : the pipeline as shipped)."""
    with ProcessPoolExecutor(jobs, initializer=switch_off, initargs=(step,)) as pool:
        return dict(pool.map(_f1, pages, chunksize=4))


def gain(shipped: dict[str, float], without: dict[str, float], keep: Callable[[str], bool]) -> float:
    names = [n for n in shipped if keep(n)]
    return statistics.fmean(shipped[n] - without[n] for n in names) if names else 0.0


def moved(shipped: dict[str, float], without: dict[str, float]) -> str:
    up = sum(shipped[n] - without[n] > MOVED for n in shipped)
    down = sum(without[n] - shipped[n] > MOVED for n in shipped)
    return f"{up} / {down}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="", help=f"comma-separated, of: {', '.join(STEPS)} (default: all)")
    parser.add_argument("--split", choices=("both", "tune", "heldout"), default="both")
    parser.add_argument("--every", type=int, default=1, help="every Nth page only (a quick subset)")
    parser.add_argument("--jobs", type=int, default=2, help="pages scored in this many processes")
    args = parser.parse_args()
    steps = [s.strip() for s in args.steps.split(",") if s.strip()] or list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        parser.error(f"unknown steps {unknown}; known: {', '.join(STEPS)}")
    parts = ["tune", "heldout"] if args.split == "both" else [args.split]
    pages = {part: quality.corpus_pages("wcxb", part)[:: args.every] for part in parts}
    shipped = {part: scored(pages[part], "", args.jobs) for part in parts}
    for part in parts:
        mean = statistics.fmean(shipped[part].values())
        print(f"{part}: {len(pages[part])} pages, F1 as shipped {mean:.4f}")
    head = "| step | " + " | ".join(
        "tune gain | odd / even | tune up / down" if p == "tune" else "held-out gain | held out up / down"
        for p in parts
    )
    print(head + " |")
    print("|---" * (1 + sum(3 if p == "tune" else 2 for p in parts)) + "|")
    for step in steps:
        cells = []
        for part in parts:
            without = scored(pages[part], step, args.jobs)
            if part == "tune":
                odd = gain(shipped[part], without, lambda n: int(n) % 2 == 1)
                even = gain(shipped[part], without, lambda n: int(n) % 2 == 0)
                cells += [f"{gain(shipped[part], without, bool):+.4f}", f"{odd:+.4f} / {even:+.4f}"]
            else:
                cells.append(f"{gain(shipped[part], without, bool):+.4f}")
            cells.append(moved(shipped[part], without))
        print(f"| {step} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
