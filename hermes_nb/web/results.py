"""Typed results of web calls (search, extract, crawl) and converters from Hermes envelopes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, overload
from urllib.parse import urlsplit

from hermes_nb._services import services
from hermes_nb.code_fences import CodeFences
from hermes_nb.extras import require
from hermes_nb.markdown_heading import HEADING
from hermes_nb.redaction import mask_known
from hermes_nb.web.extraction.formats import linked_text

__all__ = [
    "SearchHit",
    "Attempt",
    "SearchResult",
    "Page",
    "ExtractResult",
    "CrawlResult",
    "to_record",
    "page_from_record",
    "search_result_from_record",
    "extract_result_from_record",
    "NO_RESULT_FOR_URL",
    "first_heading",
]

#: Per-URL error when an extract backend silently drops a URL (Hermes's wording).
NO_RESULT_FOR_URL = "Extract backend returned no result for this URL"

def first_heading(markdown: str) -> str:
    """The first Markdown heading in the first 40 lines, outside code fences ("" when none).

    A page's title when its provider gave none (Tavily and other Markdown-only extractors); a link in
    it reads as its words ("# [Title](https://…)" is "Title").
    """
    fences = CodeFences()
    for line in (markdown or "").splitlines()[:40]:
        match = None if fences.read(line) else HEADING.match(line)
        if match and match.group(1):
            return linked_text(match.group(1))
    return ""


def _mimebundle(obj: object) -> Any:
    return services.render(obj)


def _require_pandas() -> Any:
    return require("pandas", "to_pandas()")


@dataclass
class SearchHit:
    """One search result."""

    title: str
    url: str
    description: str
    position: int
    #: what the provider says about this hit, e.g. ``{"model_generated": True}`` (xAI's citations)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def model_generated(self) -> bool:
        """True when a model chose this hit (it may be wrong or missing); the rendering marks it."""
        return bool(self.metadata.get("model_generated"))

    @property
    def domain(self) -> str:
        host = urlsplit(self.url).hostname or ""
        return host[4:] if host.startswith("www.") else host

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "title": self.title,
            "url": self.url,
            "description": self.description,
            "position": self.position,
        }
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        return out


@dataclass
class Attempt:
    """One provider tried by selection: ``code`` is None when it answered."""

    provider: str
    code: str | None
    message: str
    elapsed_s: float

    def __repr__(self) -> str:
        outcome = "ok" if self.code is None else self.code
        return f"Attempt({self.provider}: {outcome})"


@dataclass
class SearchResult:
    """Hits of one search, with the provider that answered and what was tried."""

    query: str
    hits: list[SearchHit]
    provider: str
    attempts: list[Attempt] = field(default_factory=list)
    duration_s: float = 0.0
    limit: int = 5
    effective_limit: int = 5
    cached: bool = False
    warnings: list[str] = field(default_factory=list)
    #: when the cached answer was first fetched (``2026-11-24T10:31:02Z``); empty when fresh
    cached_at: str = ""

    @property
    def served_by(self) -> str:
        """The provider whose answer this is (after a fallback chain, not always the first tried)."""
        return self.provider

    @property
    def envelope(self) -> dict[str, Any]:
        """The Hermes search envelope ``{"success": True, "data": {"web": [...]}}``."""
        return {"success": True, "data": {"web": [hit.to_dict() for hit in self.hits]}}

    def __iter__(self) -> Iterator[SearchHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    @overload
    def __getitem__(self, index: int) -> SearchHit: ...
    @overload
    def __getitem__(self, index: slice) -> list[SearchHit]: ...
    def __getitem__(self, index: int | slice) -> SearchHit | list[SearchHit]:
        return self.hits[index]

    @property
    def urls(self) -> list[str]:
        return [hit.url for hit in self.hits]

    def to_pandas(self) -> Any:
        """A DataFrame with columns position, title, url, domain, description, provider, query."""
        pd = _require_pandas()
        rows = [
            {**hit.to_dict(), "domain": hit.domain, "provider": self.provider, "query": self.query}
            for hit in self.hits
        ]
        columns = ["position", "title", "url", "domain", "description", "provider", "query"]
        return pd.DataFrame(rows, columns=columns)

    def __repr__(self) -> str:
        flag = ", cached" if self.cached else ""
        text = f"SearchResult(query={self.query!r}, hits={len(self.hits)}, provider={self.provider!r}{flag})"
        return mask_known(text)  # plugins' redaction patterns hold for reprs too

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return _mimebundle(self)


@dataclass
class Page:
    """One extracted (or crawled) page; ``error`` set when this URL failed."""

    url: str
    title: str = ""
    content: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    error_code: str | None = None
    truncated: bool = False
    total_chars: int = 0
    full_text_path: str | None = None
    raw_content: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """The Hermes per-URL dict ``{"url","title","content","raw_content","metadata","error"}``."""
        return {
            "url": self.url,
            "title": self.title,
            "content": self.content,
            "raw_content": self.raw_content if self.raw_content is not None else self.content,
            "metadata": dict(self.metadata),
            "error": self.error,
        }

    def __repr__(self) -> str:
        if self.error is not None:
            return mask_known(f"Page(url={self.url!r}, error={self.error_code or 'error'})")
        cut = ", truncated" if self.truncated else ""
        return mask_known(f"Page(url={self.url!r}, title={self.title!r}, chars={len(self.content)}{cut})")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return _mimebundle(self)


class _Pages:
    """Sequence behaviour shared by extract and crawl results."""

    pages: list[Page]

    def __iter__(self) -> Iterator[Page]:
        return iter(self.pages)

    def __len__(self) -> int:
        return len(self.pages)

    @overload
    def __getitem__(self, index: int) -> Page: ...
    @overload
    def __getitem__(self, index: slice) -> list[Page]: ...
    def __getitem__(self, index: int | slice) -> Page | list[Page]:
        return self.pages[index]

    @property
    def errors(self) -> list[Page]:
        return [page for page in self.pages if page.error is not None]

    def to_pandas(self) -> Any:
        """A DataFrame with columns url, title, chars, truncated, error_code, error, full_text_path."""
        pd = _require_pandas()
        rows = [
            {
                "url": p.url,
                "title": p.title,
                "chars": p.total_chars or len(p.content),
                "truncated": p.truncated,
                "error_code": p.error_code,
                "error": p.error,
                "full_text_path": p.full_text_path,
                "content": p.content,
            }
            for p in self.pages
        ]
        columns = ["url", "title", "chars", "truncated", "error_code", "error", "full_text_path", "content"]
        return pd.DataFrame(rows, columns=columns)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return _mimebundle(self)


@dataclass(repr=False)
class ExtractResult(_Pages):
    """Pages of one extract call, in the order of the input URLs."""

    pages: list[Page]
    provider: str
    attempts: list[Attempt] = field(default_factory=list)
    duration_s: float = 0.0
    cached: bool = False
    #: when the cached answer was first fetched (UTC, ISO 8601); empty when fresh
    cached_at: str = ""

    @property
    def served_by(self) -> str:
        """The provider whose answer this is (after a fallback chain, not always the first tried)."""
        return self.provider

    @property
    def envelope(self) -> list[dict[str, Any]]:
        return [page.to_dict() for page in self.pages]

    def __repr__(self) -> str:
        flag = ", cached" if self.cached else ""
        return (
            f"ExtractResult(pages={len(self.pages)}, errors={len(self.errors)}, "
            f"provider={self.provider!r}{flag})"
        )


@dataclass(repr=False)
class CrawlResult(_Pages):
    """Pages reached by one crawl, breadth-first from ``start_url``."""

    start_url: str
    pages: list[Page]
    provider: str
    attempts: list[Attempt] = field(default_factory=list)
    duration_s: float = 0.0
    cached: bool = False
    #: when the cached answer was first fetched (UTC, ISO 8601); empty when fresh
    cached_at: str = ""

    @property
    def served_by(self) -> str:
        """The provider whose answer this is (after a fallback chain, not always the first tried)."""
        return self.provider

    @property
    def envelope(self) -> dict[str, Any]:
        return {"results": [page.to_dict() for page in self.pages]}

    def __repr__(self) -> str:
        flag = ", cached" if self.cached else ""
        return mask_known(
            f"CrawlResult(start_url={self.start_url!r}, pages={len(self.pages)}, "
            f"provider={self.provider!r}{flag})"
        )


# --- envelopes -> typed values -------------------------------------------------------------


def to_record(result: SearchResult | ExtractResult | CrawlResult) -> dict[str, Any]:
    """A JSON-safe dict of a web result (batch jobs persist these)."""
    return asdict(result)


def _attempts(rows: Any) -> list[Attempt]:
    return [Attempt(**row) for row in rows or []]


def page_from_record(data: dict[str, Any]) -> Page:
    """A ``Page`` from its ``asdict`` form (unknown keys ignored)."""
    return Page(**{k: v for k, v in data.items() if k in Page.__dataclass_fields__})


def _pages(rows: Any) -> list[Page]:
    return [page_from_record(row) for row in rows or []]


def search_result_from_record(data: dict[str, Any]) -> SearchResult:
    """Inverse of ``to_record`` for a ``SearchResult``."""
    fields = {k: v for k, v in data.items() if k in SearchResult.__dataclass_fields__}
    fields["hits"] = [SearchHit(**hit) for hit in data.get("hits") or []]
    fields["attempts"] = _attempts(data.get("attempts"))
    return SearchResult(**fields)


def extract_result_from_record(data: dict[str, Any]) -> ExtractResult:
    """Inverse of ``to_record`` for an ``ExtractResult``."""
    fields = {k: v for k, v in data.items() if k in ExtractResult.__dataclass_fields__}
    fields["pages"] = _pages(data.get("pages"))
    fields["attempts"] = _attempts(data.get("attempts"))
    return ExtractResult(**fields)
