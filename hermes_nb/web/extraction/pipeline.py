"""HTML page → Markdown: parse once, run candidates on the shared tree, choose, score, type the page."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from hermes_nb import config
from hermes_nb.errors import ContentFetchError

from . import candidates as cands
from .ad_labels import drop_ad_labels
from .block_links import open_block_links
from .captions import captions_before_tables
from .cell_lists import unlist_cells
from .choose import GROWTH, Choice, agreement, choose, confidence, contains, prose_share, words
from .code_figures import open_code_figures
from .control_lines import drop_control_lines
from .data_lines import drop_data_lines
from .declared_faq import faq_labels, page_faq, restore_faq
from .definition_lists import pair_definitions
from .dialogs import drop_dialogs
from .document import Document
from .emoji_images import emoji_as_text
from .flattened_headings import page_headings, unflatten_headings
from .formats import markdown_to_text
from .formulas import hold_formulas, restore_formulas
from .frames import drop_inline_frame_text, frame_sources
from .heading_controls import drop_heading_controls
from .hyperlinks import link_words
from .identifiers import drop_identifier_lines
from .images import place_images
from .inline_gaps import space_adjacent_inlines
from .layout_tables import unlay_tables
from .list_numbers import number_lists
from .lost_labels import page_labels, restore_labels
from .lost_lists import page_lists, restore_lists
from .markdown_repairs import tidied
from .metadata import page_metadata
from .misnamed import unmask_misnamed
from .mojibake import may_hold_mojibake, repair_mojibake_in_tree
from .nesting import PARSER_DEPTH, flatten_deep_nesting, parser_cut_off, shallow_markup
from .noscript_markup import parse_noscript_markup
from .note_marks import bracket_note_marks
from .page_type import card_group, classify, page_type, post_elements
from .preformatted import restore_code_languages, rewrite_preformatted
from .product_extras import drop_product_extras
from .published_date import DATED_TYPES, found_date
from .quotations import set_quotations
from .quoted_posts import open_quoted_posts
from .quoted_tables import unquote_tables
from .repeats import drop_copied_sections, drop_repeats
from .ruby import drop_ruby_annotations
from .screen_reader_text import drop_screen_reader_text
from .scripts import word_count, word_key
from .sectioned_lists import unlist_sections
from .shell import drop_script_notices, hidden_scaffolding
from .source_wrapping import unwrap_source_lines
from .streamed import place_streamed
from .templates import open_templates
from .title_heading import TITLED_TYPES, drop_title_heading
from .tooltips import drop_tooltips
from .tree import drop_hidden, parse_html, squash, unlinked_word_count, visible_text
from .unfilled import drop_unfilled_expressions

__all__ = ["html_converter_ready", "html_to_markdown", "html_signals", "missing_package", "visible_text_of"]

DEFAULT_MIN_CONFIDENCE = 0.5
SECOND_OPINION_WORDS = 300  # primary results shorter than this are checked against readability
FAST_READING_WORDS = 300  # a fast reading (no rescue pass) shorter than this gets the rescue pass after all
RECALL_WORDS = 1000  # primary results shorter than this are checked against trafilatura's recall mode
#: How a later candidate replaces the current reading: (share of its words kept, growth in length).
RECALL_REPAIR = (0.9, 1.1)
SECTIONS_REPAIR = (0.75, 1.25)  # re-tuned in round 7: both halves of the tune part gained
POSTS_REPAIR = (0.7, 1.0)
NOSCRIPT_REPAIR = (0.8, 1.3)
PRODUCT_DESCRIPTION_WORDS = 15  # a structured-data description at least this long is worth adding
_KEEP_HIDDEN = {"product", "collection"}
#: Page types whose readings repeat what they already said: the hidden copies product pages and grids
#: keep (mobile and desktop descriptions), a thread's quotes of earlier posts, and a listing's cards
#: read twice (a card's front and its body: on the tune part of WCXB, listings 0.716 → 0.719, none
#: lower; held out, −0.0003 overall, see RESULTS.md; on every type it cost service pages 0.003).
_REPEATS_DROPPED = _KEEP_HIDDEN | {"forum", "listing"}
#: Page types whose extra sections are not content: an article's related stories, a product's
#: recommendations, a thread's sidebar of other threads (on the tune part of WCXB, sections cost
#: threads 0.015 F1).
_NO_SECTIONS = {"product", "article", "forum"}
#: Page types whose short readings trafilatura's recall mode repairs (specifications, short replies,
#: grid cards it takes for boilerplate); on the tune part it added nothing on the others.
_RECALL_TYPES = {"product", "collection", "forum"}
#: Page types that get readability's second opinion on a short reading: untyped pages (Readability's
#: test pages +0.03 F1) and products; on typed articles, docs, listings and threads it never won.
_SECOND_OPINION_TYPES = {None, "product"}
#: Page types where trafilatura's rescue pass (about a fifth of its time) adds nothing: on the tune part
#: of WCXB the fast pass read them as well or better (documentation +0.002, listing +0.029, service
#: +0.001 F1 by the classifier's type), while articles, threads, products and untyped pages need it.
_NO_RESCUE = {"documentation", "listing", "service"}
#: Page types made of repeated cards (product grids, listings), and the share of the cards' words a
#: reading must hold not to have the cards added (on the tune part of WCXB, collection 0.610 → 0.635).
_CARD_TYPES = {"collection", "listing"}
CARDS_HELD = 0.5
_TITLE_TAG = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.I | re.S)
_SCRIPT_TAG = re.compile(r"<script\b", re.I)
_RUN_IN_HEADING = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+#{1,6} \S|\S\s#{1,6} \S", re.M)
_QA_MICRODATA = "boolean(//*[@itemtype][contains(@itemtype, 'schema.org/QAPage')])"
_PRIVATE_META = ("json_ld_types", "og_type", "generator", "json_ld_product", "json_ld_faq")
#: What the steps before and after the extractors changed, in the page's metadata (each count when not 0).
_CHANGES = (
    "hidden_elements_dropped",
    "repeated_blocks_dropped",
    "identifier_lines_dropped",
    "data_lines_dropped",
    "ad_labels_dropped",
    "control_lines_dropped",
    "script_notices_dropped",
    "product_extras_dropped",
    "dialogs_dropped",
    "misnamed_blocks_kept",
    "streamed_segments_placed",
    "deep_wrappers_unwrapped",
    "quoted_tables_unquoted",
    "layout_tables_unlaid",
    "cell_lists_read",
    "formulas_read_as_tex",
    "heading_controls_dropped",
    "ruby_annotations_dropped",
    "code_figures_opened",
    "quoted_posts_opened",
    "screen_reader_text_dropped",
    "emoji_images_read",
    "templates_dropped",
    "unfilled_expressions_dropped",
    "inline_frame_text_dropped",
    "mojibake_repaired",
    "noscript_markup_parsed",
    "note_marks_bracketed",
    "tooltips_dropped",
    "shadow_roots_opened",
    "block_links_opened",
    "lost_lists_restored",
    "lost_titles_restored",
    "faq_answers_restored",
    "title_heading_dropped",
    "list_numbers_restored",
    "quotations_set",
    "links_kept",
    "images_kept",
)
#: Candidates tried, in order, after the first choice when its confidence is below the threshold.
_NEXT = (cands.READABILITY, cands.TRAFILATURA_RECALL, cands.TRAFILATURA_PRECISION)


def html_to_markdown(
    html: str, *, url: str | None = None, min_confidence: float | None = None, images: bool = False
) -> Document:
    """Main text of an HTML page as Markdown with metadata, ``confidence`` and ``page_type``; never ``None``.

    ``images``: the page's figures in it too, where the words around them place them (images.py).

    Raises ``ContentFetchError`` naming the missing package when the converter cannot be imported
    (an install whose pip skipped a dependency), so the page fails instead of showing raw HTML.
    """
    html_converter_ready(url)
    root = parse_html(html)
    if root is None:
        return _stub(html, url, visible="")
    if parser_cut_off(root):  # the parser stopped at its depth limit: its deep tags go first (nesting.py)
        root = reparsed if (reparsed := parse_html(shallow_markup(html))) is not None else root
    # Text a server decoded with the wrong charset and wrote out again, read as written (mojibake.py).
    mojibake = repair_mojibake_in_tree(root) if may_hold_mojibake(html) else 0
    meta: dict[str, Any] = {"content_type": "text/html", **page_metadata(root, url)}
    title = str(meta.pop("title", ""))
    frames = frame_sources(root, url)
    if frames:  # a frameset: its text is in other documents (frames.py)
        return _framed(title, _recorded(meta, {}), frames)
    changes = {"streamed_segments_placed": place_streamed(root), "mojibake_repaired": mojibake}
    # What is written inside an <iframe>, which no browser shows (frames.py).
    changes["inline_frame_text_dropped"] = drop_inline_frame_text(root)
    changes["deep_wrappers_unwrapped"], cut_off = flatten_deep_nesting(root)
    if cut_off:
        meta["parse_warning"] = (
            f"the page nests elements more than {PARSER_DEPTH:,} levels deep; the parser stopped "
            "reading there, so the rest of the page is missing"
        )
    # Inert templates go; server-rendered web components' shadow roots open (templates.py).
    changes["templates_dropped"], changes["shadow_roots_opened"] = open_templates(root)
    # <noscript> blocks a page saved from a DOM wrote as escaped text: parsed (noscript_markup.py).
    changes["noscript_markup_parsed"] = parse_noscript_markup(root)
    # The {{ … }} expressions of the templates left in the page, which its scripts were to fill
    # (unfilled.py); nine pages in ten have none anywhere, and a search of the string is nearly free.
    changes["unfilled_expressions_dropped"] = drop_unfilled_expressions(root) if "{{" in html else 0
    # Each formula a placeholder until the reading is chosen (formulas.py).
    formulas = hold_formulas(root)
    changes["formulas_read_as_tex"] = len(formulas)
    guess = classify(root, url or "", meta)
    # A date the page shows but does not declare, on the kinds of page that carry one (published_date.py).
    if "date" not in meta and guess in DATED_TYPES and (found := found_date(root, url)):
        meta["date"] = found
    # Permalink signs and edit links inside headings ("Installation¶", "History[edit]"): not the titles'
    # words. Then the titles, before the toggles and card links are prepared away (lost_labels.py).
    changes["heading_controls_dropped"] = drop_heading_controls(root)
    labels = page_labels(root, headlines=guess in _CARD_TYPES)
    # The FAQ the page declares in its structured data and shows: its questions are titles too.
    faq = page_faq(root, meta.get("json_ld_faq") or [])
    labels += faq_labels(faq)
    lists = page_lists(root)
    changes.update(_prepared(root, guess))
    primary = _primary(root, url, guess)
    # A second opinion where trafilatura is most often short of paragraphs (short results on untyped
    # pages and products); longer pages get one only when the first choice is not confident enough.
    worth = guess in _SECOND_OPINION_TYPES and _worth_second_opinion(primary.markdown, root)
    second = _readability(root) if worth else None
    choice = choose(primary, second)
    tried = [primary.name] + ([second.name] if second is not None else [])
    qa = guess == "forum" and _qa_page(root, meta)
    choice = _repaired(root, url, choice, guess, tried, qa=qa)
    threshold = _threshold(min_confidence)
    if choice.confidence < threshold:
        choice = _next_candidate(root, url, choice, tried, threshold)
    if guess == "product":
        choice = _with_product_description(choice, meta.get("json_ld_product") or {})
    if guess in _CARD_TYPES:
        choice = _with_missed_cards(root, choice, tried)
    # Products and threads lose every block they say twice, grids and listings every one but their
    # cards' figures (two cards at one price each keep it); every other page only a whole section it
    # says twice (a responsive copy). No page keeps lines of identifiers.
    drop: Callable[[str], tuple[str, int]] = drop_copied_sections
    if guess in _REPEATS_DROPPED:
        drop = partial(drop_repeats, keep_values=guess in _CARD_TYPES)
    choice, changes["repeated_blocks_dropped"] = _edited(choice, drop, "repeated blocks dropped")
    choice, changes["identifier_lines_dropped"] = _edited(
        choice, drop_identifier_lines, "lines of identifiers dropped"
    )
    if guess != "documentation":  # a reference page may show an example object in a paragraph
        choice, changes["data_lines_dropped"] = _edited(choice, drop_data_lines, "lines of data dropped")
    choice, changes["ad_labels_dropped"] = _edited(choice, drop_ad_labels, "advertisement labels dropped")
    choice, changes["control_lines_dropped"] = _edited(choice, drop_control_lines, "page controls dropped")
    choice, changes["lost_lists_restored"] = _edited(
        choice, partial(restore_lists, lists=lists), "lists the reading lost restored"
    )
    choice, changes["lost_titles_restored"] = _edited(
        choice, partial(restore_labels, labels=labels, title=title), "titles the reading lost restored"
    )
    choice, changes["faq_answers_restored"] = _edited(
        choice, partial(restore_faq, faq=faq), "FAQ answers the reading lost restored"
    )
    choice, changes["script_notices_dropped"] = _edited(
        choice, drop_script_notices, "notices asking for JavaScript dropped"
    )
    # An application shell: what was read is a notice or hidden scaffolding, not text (shell.py).
    if (changes["script_notices_dropped"] and not choice.candidate.markdown) or (
        guess in _KEEP_HIDDEN and hidden_scaffolding(root, choice.candidate.markdown)
    ):
        return _unrendered(title, _recorded(meta, changes), tried)
    if not choice.candidate.markdown:
        # What the page shows after the steps' drops, else as it came (the steps took all of it).
        visible = restore_code_languages(restore_formulas(visible_text(root), formulas))
        visible = visible or visible_text_of(html)
        # Not a word to show either way, and scripts to run: an application shell whose scripts write
        # its text (a forum app's splash screen), not an empty page.
        if not visible.strip() and _SCRIPT_TAG.search(html):
            return _unrendered(title, _recorded(meta, changes), tried)
        return _stub(html, url, visible=visible, title=title, meta=_recorded(meta, changes), tried=tried)
    text = tidied(restore_code_languages(restore_formulas(choice.candidate.markdown, formulas)))
    if _RUN_IN_HEADING.search(text):  # a list item's heading run into its text (flattened_headings.py)
        text, _ = unflatten_headings(text, page_headings(root))
    kind = page_type(root, guess, prose_share(text), choice.candidate.link_density)
    if kind in TITLED_TYPES and title:  # the title is the document's, not its text's first line
        text, changes["title_heading_dropped"] = drop_title_heading(text, title)
    meta.update(
        extractor=choice.candidate.name,
        extractor_reason=choice.reason,
        candidates=tried,
        confidence=choice.confidence,
        page_type=kind,
    )
    if choice.confidence < threshold:
        meta["low_confidence"] = True
    if "description" not in meta:
        lead = _lead_paragraph(text)
        if lead:
            meta["description"] = lead
    title = title or _first_heading(text)
    # A list the page numbers from N numbered from N, not from 1 (list_numbers.py).
    text, changes["list_numbers_restored"] = number_lists(text, root)
    # The page's quotations set as quotations, "> …" (quotations.py).
    text, changes["quotations_set"] = set_quotations(text, root)
    # The page's links, put back on the words the reading kept (hyperlinks.py).
    text, changes["links_kept"] = link_words(text, root, url)
    if images:  # the page's figures, where the words around them place them (images.py)
        text, changes["images_kept"] = place_images(text, root, url)
    return Document(title=title, content=text, metadata=_recorded(meta, changes))


def _recorded(meta: dict[str, Any], changes: dict[str, int]) -> dict[str, Any]:
    """``meta`` with the counts of what the steps changed, and without the keys only typing needed."""
    meta.update((key, changes[key]) for key in _CHANGES if changes.get(key))
    for key in _PRIVATE_META:
        meta.pop(key, None)
    return meta


def html_converter_ready(url: str | None = None) -> None:
    """Raise ``ContentFetchError`` naming the package to install when the HTML converter cannot be imported.

    Cheap after the first call; ``direct`` checks it before handing pages to worker processes, so a
    broken install fails each page with its fix here rather than in a worker.
    """
    try:
        import trafilatura  # noqa: F401  # heavy: imported on first conversion
    except ImportError as exc:
        missing = missing_package(exc)
        raise ContentFetchError(
            f"cannot convert the HTML of {url or 'the page'} to Markdown: the converter could not be "
            f"imported ({exc}). Fix: pip install {missing}, then restart the kernel.",
            details={"missing_module": exc.name or "", "fix": f"pip install {missing}"},
        ) from exc


def _prepared(root: Any, guess: str | None) -> dict[str, int]:
    """Take out of the tree what is not the page's text, and reshape what the extractors misread (code,
    lists of tables), before they read it; what went."""
    changes = {
        # The names icon buttons give themselves for screen readers (screen_reader_text.py).
        "screen_reader_text_dropped": drop_screen_reader_text(root),
        # The bubbles a glossary term or an info icon opens on hover (tooltips.py).
        "tooltips_dropped": drop_tooltips(root),
        # Dialogs (consent centres, fly-in menus, pop-ups), ARIA menus and navigation landmarks; a
        # product page keeps its description sheets.
        "dialogs_dropped": drop_dialogs(root, consent_only=guess == "product"),
        # Hidden elements, except tab panels, accordions and loading curtains (content a click shows);
        # product pages and product grids keep them all (descriptions, specifications, more cards).
        "hidden_elements_dropped": 0 if guess in _KEEP_HIDDEN else drop_hidden(root, keep_disclosures=True),
        # A product page's reviews, other products and consent banner (product_extras.py).
        "product_extras_dropped": drop_product_extras(root) if guess == "product" else 0,
        # Not taken out but unmasked: prose whose class trafilatura reads as boilerplate (misnamed.py).
        "misnamed_blocks_kept": unmask_misnamed(root),
        # Readings printed above characters (furigana): the base text is the text (ruby.py).
        "ruby_annotations_dropped": drop_ruby_annotations(root),
        # Not taken out but read: emoji drawn as images, as the emoji they show (emoji_images.py).
        "emoji_images_read": emoji_as_text(root),
        # Cards written as one link, on untyped pages: their blurbs read as text (block_links.py).
        "block_links_opened": open_block_links(root) if guess is None else 0,
        # A reply's quotation of an earlier post, set in an <aside>, on threads (quoted_posts.py).
        "quoted_posts_opened": open_quoted_posts(root) if guess == "forum" else 0,
    }
    # A raised link to a note, "daily[2]", not "daily2" (note_marks.py).
    changes["note_marks_bracketed"] = bracket_note_marks(root)
    # Words a style sheet sets apart ("ScarpaDrago", a brand and a title) spaced: nothing goes (inline_gaps).
    space_adjacent_inlines(root)
    # A code listing set in a <figure>, which trafilatura removes unread, a block (code_figures.py).
    changes["code_figures_opened"] = open_code_figures(root)
    # Every <pre> one <code> of its lines, which the extractors keep as a code block (preformatted.py),
    # and lists whose items hold tables read as blocks, the tables as tables (sectioned_lists.py).
    rewrite_preformatted(root)
    unlist_sections(root)
    # Tables set in a <blockquote> to indent them, read as tables, not as one line (quoted_tables.py).
    changes["quoted_tables_unquoted"] = unquote_tables(root)
    # A page column set in a table cell read as its blocks, not as one cell's line (layout_tables.py).
    changes["layout_tables_unlaid"] = unlay_tables(root)
    # Lists in the cells of the tables left, read as the cells' text: trafilatura empties such a cell.
    changes["cell_lists_read"] = unlist_cells(root)
    pair_definitions(root)  # a definition list's terms and short values on one line (definition_lists.py)
    captions_before_tables(root)  # a caption as the paragraph above its table (captions.py)
    unwrap_source_lines(root)  # the source's line breaks, spaces to a reader (source_wrapping.py)
    return changes


def _primary(root: Any, url: str | None, guess: str | None) -> cands.Candidate:
    """trafilatura's reading; without its rescue pass where the type does not need it, unless that
    fast reading comes out short (a page of links it mistook for navigation), when the rescue runs."""
    if guess in _NO_RESCUE:
        fast = cands.trafilatura_candidate(root, url, rescue=False)
        if word_count(fast.markdown) >= FAST_READING_WORDS:
            return fast
    return cands.trafilatura_candidate(root, url)


def _worth_second_opinion(text: str, root: Any) -> bool:
    """Short results only, and only where the page shows enough more text for readability to win."""
    n = word_count(text)
    if not n or n >= SECOND_OPINION_WORDS:
        return False
    # The second candidate replaces the first only when it adds GROWTH times the words, mostly outside
    # links, and it can only take text the page shows: with fewer unlinked words than that, it cannot win.
    return unlinked_word_count(root) >= GROWTH * n


def _repaired(
    root: Any, url: str | None, choice: Choice, guess: str | None, tried: list[str], *, qa: bool = False
) -> Choice:
    """Later candidates that keep the current reading and add what it missed replace it.

    Short readings of products, grids and threads are checked against trafilatura's recall mode; a
    thread's against all its posts (on a ``qa`` page, a ``QAPage``, without their comments); every
    page's against its ``<noscript>`` copy, when it has one longer than the reading; then, except on
    articles, products and threads, against every content section of the page (landing
    pages, service pages, listings, docs, and untyped pages however much prose they read as: on the
    tune part of WCXB, nine of the ten untyped pages of prose it changed gained).
    A repair keeps at least the confidence of the reading it contains.
    """
    current = choice
    if guess in _RECALL_TYPES and word_count(current.candidate.markdown) < RECALL_WORDS:
        tried.append(cands.TRAFILATURA_RECALL)
        recall = cands.trafilatura_candidate(root, url, cands.TRAFILATURA_RECALL)
        if contains(current.candidate, recall, share=RECALL_REPAIR[0], growth=RECALL_REPAIR[1]):
            current = _repair(current, recall, "recall reading adds missing paragraphs")
    if guess == "forum":
        tried.append(cands.POSTS)
        posts = cands.posts_candidate(post_elements(root), qa=qa)
        if contains(current.candidate, posts, share=POSTS_REPAIR[0], growth=POSTS_REPAIR[1]):
            return _repair(current, posts, "every post of the thread")
    # A page whose scripts render its text (a thread in a script app) may serve it whole in <noscript>.
    copy = cands.noscript_candidate(root, at_least=len(current.candidate.markdown))
    if copy is not None:
        tried.append(cands.NOSCRIPT)
        if contains(current.candidate, copy, share=NOSCRIPT_REPAIR[0], growth=NOSCRIPT_REPAIR[1]):
            current = _repair(current, copy, "the page's copy for readers without scripts adds to it")
    if guess not in _NO_SECTIONS:
        tried.append(cands.SECTIONS)
        at_least = SECTIONS_REPAIR[1] * sum(words(current.candidate.markdown).values())
        sections = cands.sections_candidate(root, at_least=at_least)
        if contains(current.candidate, sections, share=SECTIONS_REPAIR[0], growth=SECTIONS_REPAIR[1]):
            current = _repair(current, sections, "page sections add missing content")
    return current


def _qa_page(root: Any, meta: dict[str, Any]) -> bool:
    """A schema.org ``QAPage`` (a question and its answers), in JSON-LD or microdata."""
    return "QAPage" in (meta.get("json_ld_types") or ()) or bool(root.xpath(_QA_MICRODATA))


def _with_product_description(choice: Choice, product: dict[str, str]) -> Choice:
    """The product's own description (JSON-LD) first, when the reading lacks most of its words.

    Shops often render the description in a script-filled tab the extractors never see, and the
    reading then holds reviews or recommendations instead.
    """
    description = product.get("description", "")
    wanted = words(description)
    n = sum(wanted.values())
    if n < PRODUCT_DESCRIPTION_WORDS:
        return choice
    text = choice.candidate.markdown
    if sum((wanted & words(text)).values()) / n >= 0.5:
        return choice
    name = product.get("name", "")
    lead = (f"# {name}\n\n" if name and name not in text else "") + description
    better = cands.Candidate(
        choice.candidate.name, f"{lead}\n\n{text}".strip(), choice.candidate.link_density
    )
    return Choice(better, choice.confidence, choice.reason + "; product description from structured data")


def _with_missed_cards(root: Any, choice: Choice, tried: list[str]) -> Choice:
    """The grid's cards after the reading, when it holds less than ``CARDS_HELD`` of their words or most
    of their titles are missing from it.

    Extractors read a grid's heading and blurb and take its cards (title, snippet, price) for
    navigation; on a product grid or listing the cards are the content. Where the scripts render the
    grid, the largest group left is the footer's link columns or a menu: those are not cards.
    """
    tried.append(cands.CARDS)
    group = card_group(root, outside_furniture=True)
    cards = cands.cards_candidate(group)
    wanted = words(cards.markdown)
    n = sum(wanted.values())
    text = choice.candidate.markdown
    if not n:
        return choice
    if sum((wanted & words(text)).values()) / n >= CARDS_HELD and not _titles_missed(group, text):
        return choice
    text = _without_card_fragments(text, cards.markdown)
    both = cands.Candidate(choice.candidate.name, f"{text}\n\n{cards.markdown}".strip(), cards.link_density)
    return Choice(both, choice.confidence, choice.reason + "; the grid's cards the reading missed")


def _titles_missed(group: list[Any], text: str) -> bool:
    """True when the reading lacks most of the cards' titles (each card's longest link text)."""
    titles = []
    for card in group:
        links = [word_key(a.text_content()) for a in card.iter("a")]
        best = max(links, key=len, default="")
        if best.count(" ") >= 1:
            titles.append(best)
    if len(titles) < len(group) / 2:
        return False
    said = " " + word_key(text.replace("\n", " ")) + " "
    return sum(f" {t} " in said for t in titles) < len(titles) / 2


def _without_card_fragments(text: str, cards: str) -> str:
    """``text`` without its lines that are lines of the cards (prices read without their titles)."""
    card_lines = {key for key in (word_key(line) for line in cards.split("\n")) if key}
    kept = [line for line in text.split("\n") if word_key(line) not in card_lines]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def _edited(choice: Choice, edit: Callable[[str], tuple[str, int]], reason: str) -> tuple[Choice, int]:
    """The reading with what ``edit`` takes out of its text (or puts back into it: lost titles and
    lists), and how many blocks it changed."""
    text, changed = edit(choice.candidate.markdown)
    if not changed:
        return choice, 0
    kept = cands.Candidate(choice.candidate.name, text, choice.candidate.link_density)
    return Choice(kept, choice.confidence, f"{choice.reason}; {reason}"), changed


def _repair(current: Choice, better: cands.Candidate, reason: str) -> Choice:
    agree = agreement(words(better.markdown), words(current.candidate.markdown))
    return Choice(better, max(current.confidence, confidence(better, agree)), reason)


def _readability(root: Any) -> cands.Candidate | None:
    try:
        return cands.readability_candidate(root)
    except ImportError:  # an install without readability-lxml still extracts, with one candidate
        return None


def _threshold(given: float | None) -> float:
    value = given if given is not None else config.get("web.extract.min_confidence", DEFAULT_MIN_CONFIDENCE)
    try:
        return max(0.0, min(1.0, float(value)))
    except (TypeError, ValueError):
        return DEFAULT_MIN_CONFIDENCE


def _next_candidate(
    root: Any, url: str | None, current: Choice, tried: list[str], threshold: float
) -> Choice:
    """Try the remaining candidates in order; keep the most confident one (agreement with the current)."""
    best = current
    for name in _NEXT:
        if name in tried:
            continue
        tried.append(name)
        cand = (
            _readability(root) if name == cands.READABILITY else cands.trafilatura_candidate(root, url, name)
        )
        if cand is None or not cand.markdown:
            continue
        agree = (
            agreement(words(cand.markdown), words(current.candidate.markdown))
            if current.candidate.markdown
            else None
        )
        score = confidence(cand, agree)
        if score > best.confidence:
            best = Choice(cand, score, f"next candidate after low confidence ({current.confidence:.2f})")
        if best.confidence >= threshold:
            break
    return best


def _stub(
    html: str,
    url: str | None,
    *,
    visible: str,
    title: str = "",
    meta: dict[str, Any] | None = None,
    tried: list[str] | None = None,
) -> Document:
    """Too little text for the extractors (a stub or a JavaScript shell): keep ``visible``, what it shows."""
    meta = dict(meta or {"content_type": "text/html"})
    for key in _PRIVATE_META:
        meta.pop(key, None)
    if not title:
        match = _TITLE_TAG.search(html[:200_000])
        title = squash(_unescape(match.group(1))) if match else ""
    body = visible
    n = word_count(body)
    meta.update(
        extractor="visible-text",
        extractor_reason="no candidate found main text",
        candidates=tried or [],
        confidence=round(min(0.3, n / 500), 2),
        page_type="other",
        low_confidence=True,
    )
    return Document(title=title, content=body, metadata=meta)


def _unrendered(title: str, meta: dict[str, Any], tried: list[str]) -> Document:
    """An application shell: no text without its scripts; read as empty, and saying so."""
    meta.update(
        extractor="none",
        extractor_reason="the page's scripts render its text: the HTML holds none (render it in a browser)",
        candidates=tried,
        confidence=0.0,
        page_type="other",
        low_confidence=True,
        rendered_by_scripts=True,
    )
    return Document(title=title, content="", metadata=meta)


def _framed(title: str, meta: dict[str, Any], frames: list[str]) -> Document:
    """A frameset: no text of its own; read as empty, naming the frames that hold it."""
    meta.update(
        extractor="none",
        extractor_reason=f"the page is a frameset: its text is in its {len(frames)} frame(s) (extract "
        "the addresses in metadata['frames'])",
        candidates=[],
        confidence=0.0,
        page_type="other",
        low_confidence=True,
        frames=frames,
    )
    return Document(title=title, content="", metadata=meta)


def _lead_paragraph(markdown: str) -> str:
    """The first prose paragraph as plain text (the description when the page has none): its marks and
    escapes read as a reader sees them, so ``snake\\_case`` reads "snake_case" (it read "snake\\case")."""
    for block in markdown.split("\n\n"):
        block = block.strip()
        if block and not re.match(r"^(?:#|[-*+] |\d+\. |>|\||```)", block) and word_count(block) >= 8:
            return squash(markdown_to_text(block))
    return ""


def _first_heading(markdown: str) -> str:
    match = re.search(r"^#{1,2}\s+(.+)$", markdown, re.M)
    return match.group(1).strip() if match else ""


def missing_package(exc: ImportError) -> str:
    """The pip name to install for a failed converter import."""
    # lxml>=5.2 raises a bare ImportError (no .name) when its split-off lxml_html_clean is absent.
    if "lxml_html_clean" in str(exc) or (exc.name or "").startswith("lxml_html_clean"):
        return "lxml_html_clean"
    return (exc.name or "trafilatura").split(".")[0]


def html_signals(html: str) -> tuple[int, int]:
    """``(script tags, visible body characters)`` — what the Jina Reader triggers look at."""
    return len(_SCRIPT_TAG.findall(html)), len(visible_text_of(html))


def visible_text_of(html: str) -> str:
    """Visible text of an HTML string (scripts, styles and the head left out); ``""`` when unparsable."""
    return visible_text(parse_html(html))


def _unescape(text: str) -> str:
    import html as html_lib

    return html_lib.unescape(text)
