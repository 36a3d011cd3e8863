"""``local``: search that works offline, over extracted pages and indexed folders (FTS5, BM25 order)."""

from __future__ import annotations

from typing import Any

from hermes_nb.provider_api import STORE_FILENAME as FILENAME
from hermes_nb.provider_api import StoreError, WebSearchProvider, get_store

MAX_RESULTS = 100


class LocalProvider(WebSearchProvider):
    """Full-text search over the store; available once it holds at least one page."""

    name = "local"
    display_name = "Local store (offline)"
    tier = "offline"
    max_limit = MAX_RESULTS
    price_note = "offline"
    tagline = f"Searches pages in $HERMES_HOME/{FILENAME}; add files with hn.store.index_folder(path)"
    install_hint = "extract some pages first, or add files with hn.store.index_folder(path)"
    docs_url = "https://github.com/hermes-nb/hermes_nb#the-cache-record-and-replay-batches"  # the README


    def _has_pages(self) -> bool:
        store = get_store()
        # Never create the store file just to answer an availability check.
        if not store.path.exists():
            return False
        try:
            return store.has_pages()
        except StoreError:
            return False

    def is_available(self) -> bool:
        return self._has_pages()

    def is_keyless_available(self) -> bool:
        return self._has_pages()

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        hits = get_store().search_pages(query, max(1, min(int(limit), MAX_RESULTS)))
        return {"success": True, "data": {"web": [hit.to_dict() for hit in hits]}}
