"""Batches: ``search_many``, ``extract_many``, ``imagine_many``, ``video_many`` and their async twins.

Bounded concurrency, results in input order or streamed as they finish (``stream=True``, or
``async for`` on the async twins), a ``BatchError`` row per failed item, any
``concurrent.futures.Executor`` (a Dask client's too), ``job=`` to resume an interrupted batch,
and one adaptive rate limiter per provider shared by the whole process (``limits()``).
"""

from hermes_nb.batch.images import IMAGE_COLUMNS, aimagine_many, imagine_many
from hermes_nb.batch.limits import limits
from hermes_nb.batch.result import BatchError, BatchResult
from hermes_nb.batch.runner import run_batch, stream_batch
from hermes_nb.batch.tasks import AsyncBatch
from hermes_nb.batch.videos import VIDEO_COLUMNS, avideo_many, video_many
from hermes_nb.batch.web import (
    EXTRACT_COLUMNS,
    SEARCH_COLUMNS,
    aextract_many,
    asearch_many,
    extract_many,
    search_many,
)

__all__ = [
    "AsyncBatch",
    "BatchError",
    "BatchResult",
    "run_batch",
    "stream_batch",
    "search_many",
    "asearch_many",
    "extract_many",
    "aextract_many",
    "imagine_many",
    "aimagine_many",
    "limits",
    "video_many",
    "avideo_many",
    "VIDEO_COLUMNS",
    "SEARCH_COLUMNS",
    "EXTRACT_COLUMNS",
    "IMAGE_COLUMNS",
]
