"""``benchmarks/bench_extract_steps.py`` switches steps off by the names the pipeline calls them by: a
step renamed or removed must fail here, not leave the audit measuring nothing."""

from __future__ import annotations

import pytest
from paths import benchmark

from hermes_nb.web import content
from hermes_nb.web.extraction import pipeline


@pytest.fixture(scope="module")
def steps() -> dict[str, dict[str, object]]:
    benchmark("bench_extract_quality")  # the script imports it by name
    return benchmark("bench_extract_steps").STEPS


def test_every_step_names_what_the_pipeline_calls(steps: dict[str, dict[str, object]]) -> None:
    missing = [(step, name) for step, names in steps.items() for name in names if not hasattr(pipeline, name)]
    assert not missing


def test_a_step_switched_off_changes_the_reading(
    steps: dict[str, dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    cards = "".join(
        f"<div class='tile'><a href='/item/{i}'>Lamp model {i}</a> <span class='price'>${i}9.00</span>"
        f" <a href='/item/{i}#reviews'>brass</a></div>"
        for i in range(10)
    )
    html = (
        "<html><head><title>Lamps</title></head><body><main><h1>Lamps</h1><p>"
        + "Brass lamps for reading, made by hand in a small workshop and wired for every country. " * 12
        + f"</p><div class='grid'>{cards}</div></main></body></html>"
    )
    url = "https://shop.example/collections/lamps"
    assert "Lamp model 3" in content.convert(html, "text/html", url=url).content
    for name, replacement in steps["missed cards"].items():
        monkeypatch.setattr(pipeline, name, replacement)
    assert "Lamp model 3" not in content.convert(html, "text/html", url=url).content
