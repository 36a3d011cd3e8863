"""A batch's answers: ``BatchResult`` (a list in input order with ``.ok``, ``.errors``, ``.to_pandas()``)
and ``BatchError``, the row of an item that failed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hermes_nb.extras import require

__all__ = ["BatchError", "BatchResult"]


@dataclass
class BatchError:
    """The row of an item that failed: its position, the item, and the error code and message."""

    index: int
    item: Any
    code: str
    message: str

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"BatchError(index={self.index}, item={self.item!r}, code={self.code!r})"


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


def collected(
    values: list[Any],
    *,
    items: Sequence[Any],
    rows: Callable[[list[Any], list[Any]], list[dict[str, Any]]],
    columns: Sequence[str],
    as_frame: bool,
) -> Any:
    """A ``*_many`` call's values in input order as a ``BatchResult``, or its DataFrame with ``as_frame``."""
    batch = BatchResult(values, items=items, rows=rows, columns=columns)
    return batch.to_pandas() if as_frame else batch
