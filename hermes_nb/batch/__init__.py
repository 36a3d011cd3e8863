"""Batches: ``search_many``, ``extract_many``, ``imagine_many`` over one runner (``run_batch``).

Bounded concurrency, results in input order, a ``BatchError`` row per failed item, any
``concurrent.futures.Executor`` (a Dask client's too), and ``job=`` to resume an interrupted batch.
"""

from hermes_nb.batch.images import IMAGE_COLUMNS, imagine_many
from hermes_nb.batch.runner import BatchError, run_batch
from hermes_nb.batch.videos import VIDEO_COLUMNS, video_many
from hermes_nb.batch.web import EXTRACT_COLUMNS, SEARCH_COLUMNS, extract_many, search_many

__all__ = [
    "BatchError",
    "run_batch",
    "search_many",
    "extract_many",
    "imagine_many",
    "video_many",
    "VIDEO_COLUMNS",
    "SEARCH_COLUMNS",
    "EXTRACT_COLUMNS",
    "IMAGE_COLUMNS",
]
