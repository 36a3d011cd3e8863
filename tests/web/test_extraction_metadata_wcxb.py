"""Page metadata as a regression guard: on every eighth page of WCXB's tune part, the title, author and
date ``direct`` reads are right at least as often as trafilatura's metadata, and above a floor.

Scored as ``benchmarks/bench_extract_metadata.py`` scores them (the reference's words, its day, and
none where the reference has none); the figures to report come from the benchmark, on the held-out
part. Skips where the development corpus is absent (it lives outside the repository).
"""

from __future__ import annotations

import pytest
from paths import benchmark

pytestmark = pytest.mark.slow

EVERY = 8  # pages sampled: every eighth tune page (100 pages, about 10 s)
#: field -> the share of the sample that must be right (when written: title 0.74, author 0.77,
#: date 0.76; trafilatura's metadata 0.53, 0.74, 0.51)
FLOORS = {"title": 0.66, "author": 0.72, "date": 0.7}


@pytest.fixture(scope="module")
def rates() -> dict[str, tuple[float, float]]:
    quality = benchmark("bench_extract_quality")
    if not (quality.WCXB / "ground-truth").is_dir():
        pytest.skip(f"WCXB's development pages not found at {quality.WCXB} (outside the repository)")
    bench = benchmark("bench_extract_metadata")
    rows = [bench.score(page) for page in list(quality.wcxb_pages("tune"))[::EVERY]]

    def rate(side: str, field: str) -> float:
        return sum(bool(row[f"{side}_{field}"]) for row in rows) / len(rows)

    return {field: (rate("ours", field), rate("base", field)) for field in bench.FIELDS}


@pytest.mark.parametrize("field", sorted(FLOORS))
def test_direct_reads_the_field_right_as_often_as_trafilatura(
    rates: dict[str, tuple[float, float]], field: str
) -> None:
    ours, base = rates[field]
    assert ours >= FLOORS[field] and ours >= base, f"{field}: direct {ours:.3f}, trafilatura {base:.3f}"
