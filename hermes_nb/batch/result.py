"""``BatchResult``: a batch's answers in input order (a list) with ``.ok``, ``.errors``, ``.to_pandas()``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hermes_nb.batch.runner import BatchError
from hermes_nb.extras import require

__all__ = ["BatchResult"]


class BatchResult(list[Any]):
    """One entry per input item: its result, or a ``BatchError`` row when it failed."""

    def __init__(
        self,
        values: Iterable[Any],
        *,
        items: Sequence[Any] = (),
        rows: Callable[[list[Any], list[Any]], list[dict[str, Any]]] | None = None,
        columns: Sequence[str] = (),
    ) -> None:
        super().__init__(values)
        self.items = list(items)
        self._rows = rows
        self._columns = list(columns)

    @property
    def ok(self) -> list[Any]:
        """The results of the items that succeeded, in input order."""
        return [value for value in self if not isinstance(value, BatchError)]

    @property
    def errors(self) -> list[BatchError]:
        """The error rows of the items that failed, in input order."""
        return [value for value in self if isinstance(value, BatchError)]

    def to_pandas(self) -> Any:
        """A DataFrame: the batch's documented columns (one row per hit, page or image; errors too)."""
        pd = require("pandas", "to_pandas()")
        if self._rows is None:
            return pd.DataFrame({"item": self.items, "value": list(self)})
        return pd.DataFrame(self._rows(self.items, list(self)), columns=self._columns)

    def __repr__(self) -> str:
        return f"BatchResult({len(self)} item(s), {len(self.errors)} error(s))"
