"""What hermes_nb keeps: the SQLite store (cache, pages with FTS5, provenance, batch jobs) and image files.

``hn.store`` is this namespace: ``get_store()``, ``index(path)`` (also ``hn.index``),
``index_folder(path)``, ``search_pages(query)``.
"""

from hermes_nb.store.database import (
    FILENAME,
    KINDS,
    SCHEMA_VERSION,
    Store,
    StoreError,
    get_store,
    index,
    index_folder,
    record_image,
    search_pages,
)

__all__ = [
    "SCHEMA_VERSION",
    "FILENAME",
    "KINDS",
    "StoreError",
    "Store",
    "get_store",
    "record_image",
    "search_pages",
    "index_folder",
    "index",
]
