"""``executor=`` on a Dask LocalCluster: two in-process workers on the inproc:// transport (no sockets)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import config
from hermes_nb.testing import Emulator, use_emulator

distributed = pytest.importorskip("distributed", reason="dask[distributed] is in the dev extra")
# Dask names its in-process workers after this host's address; tests resolve no names, 127.0.0.1 is fine.
pytestmark = pytest.mark.filterwarnings("ignore:Couldn't detect a suitable IP address:RuntimeWarning")


@pytest.fixture
def dask_executor() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as client:
        assert client.scheduler.address.startswith("inproc://")  # nothing listens on a network port
        yield client.get_executor()


@pytest.fixture
def emu(hermetic: Path) -> Iterator[Emulator]:
    with Emulator(seed=0) as server, use_emulator(server, ["brave"]):
        config.set("web.search_backend", "brave")
        yield server


def test_search_many_on_a_local_cluster(emu: Emulator, dask_executor: Any) -> None:
    queries = [f"dask query {i}" for i in range(12)]
    result = hn.search_many(queries, limit=3, executor=dask_executor, concurrency=4, progress=False)
    assert [r.query for r in result] == queries and not result.errors
    assert len(emu.requests_for("brave")) == 12
    frame = result.to_pandas()
    assert len(frame) == 36 and frame["query"].iloc[0] == "dask query 0"


def test_a_failing_item_is_an_error_row_on_the_cluster(emu: Emulator, dask_executor: Any) -> None:
    emu.fail("brave", "401", times=1)
    result = hn.search_many(["first", "second"], executor=dask_executor, concurrency=1, progress=False)
    assert [type(r).__name__ for r in result] == ["BatchError", "SearchResult"]
    assert result.errors[0].code == "PROVIDER_AUTH_FAILED"
