"""Images are paid for once (checked in the emulator's request log), replayed from a cassette, budgeted."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

import hermes_nb as hn
from hermes_nb import config, errors
from hermes_nb.store import cassette
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture
def emu(hermetic: Path) -> Iterator[Emulator]:
    with Emulator(seed=0) as server, use_emulator(server, ["openai"]):
        config.set("image_gen.provider", "openai")
        yield server


def _generations(emu: Emulator) -> int:
    return len(emu.requests_for("openai"))


def test_identical_request_is_served_without_a_request(emu: Emulator) -> None:
    first = hn.imagine("a lighthouse at dusk", aspect_ratio="square", seed=3)
    assert _generations(emu) == 1 and not first.cached
    again = hn.imagine("a lighthouse at dusk", aspect_ratio="square", seed=3)
    assert _generations(emu) == 1
    assert again.cached and again.path == first.path and again.sha256 == first.sha256
    assert "from the cache" in again._repr_mimebundle_()["text/plain"]


def test_every_parameter_is_part_of_the_request(emu: Emulator) -> None:
    hn.imagine("a lighthouse", aspect_ratio="square")
    hn.imagine("a lighthouse", aspect_ratio="landscape")
    hn.imagine("a lighthouse", aspect_ratio="square", quality="low")
    hn.imagine("a lighthouse", aspect_ratio="square", seed=1)
    assert _generations(emu) == 4


def test_new_forces_a_generation_and_no_cache_records_nothing(emu: Emulator) -> None:
    hn.imagine("a red kite")
    fresh = hn.imagine("a red kite", new=True)
    assert _generations(emu) == 2 and not fresh.cached
    assert hn.imagine("a red kite").sha256 == fresh.sha256  # the newest is served next time
    images_before = hn.cache.stats()["images"]
    hn.imagine("a blue kite", no_cache=True)
    assert hn.cache.stats()["images"] == images_before and _generations(emu) == 3


def test_galleries_are_cached_whole(emu: Emulator) -> None:
    gallery = hn.imagine("three owls", n=2, seed=5)
    again = hn.imagine("three owls", n=2, seed=5)
    assert _generations(emu) == 2
    assert [r.sha256 for r in again] == [r.sha256 for r in gallery] and all(r.cached for r in again)


def test_recorded_images_replay_with_no_emulator_and_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "images.hnb.jsonl"
    with Emulator(seed=0) as emu, use_emulator(emu, ["openai"]), hn.cache.record(path):
        config.set("image_gen.provider", "openai")
        made = hn.imagine("a paper boat", aspect_ratio="square", seed=9)
    entry = cassette.read(path)[0]
    assert entry.kind == "image" and entry.file is not None and (tmp_path / entry.file).is_file()
    assert "sk-" not in path.read_text() and "emu-openai-key" not in path.read_text()
    config.reset()
    hn.cache.clear()
    monkeypatch.setenv("HERMES_NB_REPLAY", str(path))
    monkeypatch.setattr(socket, "create_connection", None)  # any connection attempt would fail loudly
    replayed = hn.imagine("a paper  boat", aspect_ratio="square", seed=9)
    assert replayed.cached and replayed.sha256 == made.sha256 and replayed.path.is_file()
    with pytest.raises(errors.CacheMissError, match="closest recorded: image 'a paper boat'"):
        hn.imagine("a paper boat", aspect_ratio="square", seed=10)


def test_costs_ledger_and_budget(emu: Emulator) -> None:
    first = hn.imagine("a green field", quality="low")
    assert first.cost is not None and first.cost["usd"] > 0
    rows = hn.cache.costs()
    assert len(rows) == 1 and rows[0]["provider"] == "openai" and rows[0]["images"] == 1
    assert rows[0]["usd"] == pytest.approx(first.cost["usd"]) and rows[0]["estimated"] is True
    assert hn.cache.stats()["spent_usd"] == pytest.approx(first.cost["usd"])
    config.set("image_gen.budget_usd", first.cost["usd"] * 2.5)
    hn.imagine("a second field", quality="low")  # within the budget
    hn.imagine("a green field", quality="low")  # cached: costs nothing
    with pytest.raises(errors.InvalidInputError, match="budget_usd"):
        hn.imagine("a third field", quality="low")
    assert _generations(emu) == 2


def test_imagine_many_refuses_an_over_budget_batch_before_any_request(emu: Emulator) -> None:
    paid = hn.imagine("warm-up", quality="low")
    price = paid.cost["usd"]
    config.set("image_gen.budget_usd", price * 4)
    before = _generations(emu)
    prompts = [f"prompt {i}" for i in range(5)]
    with pytest.raises(errors.InvalidInputError) as refused:
        hn.imagine_many(prompts, quality="low", progress=False)
    assert f"imagine_many (5 new image(s)) is estimated at ${5 * price:.3f}" in str(refused.value)
    assert _generations(emu) == before
    done = hn.imagine_many(prompts[:3], quality="low", progress=False)
    assert len(done.ok) == 3 and not done.errors and _generations(emu) == before + 3


def test_imagine_many_honours_the_providers_in_flight_cap(emu: Emulator) -> None:
    config.set("batch.openai.in_flight", 1)
    prompts = [f"ordered {i}" for i in range(4)]
    done = hn.imagine_many(prompts, quality="low", concurrency=8, progress=False)
    assert not done.errors
    assert [r.json["prompt"] for r in emu.requests_for("openai")] == prompts  # one at a time: in order


def test_a_single_image_over_the_budget_is_refused_before_any_request(emu: Emulator) -> None:
    # No image was generated yet: the estimate is the provider's own price for that size and tier.
    config.set("image_gen.budget_usd", 0.01)
    with pytest.raises(errors.InvalidInputError) as refused:
        hn.imagine("a lighthouse at dusk", aspect_ratio="square")
    assert _generations(emu) == 0 and emu.requests_for("openai") == []
    message = str(refused.value)
    assert "generating 1 image(s) with openai is estimated at $0.053" in message
    assert "more than the $0.010 that remains of image_gen.budget_usd $0.01" in message
    assert "nothing was sent" in message
    config.set("image_gen.budget_usd", 0.06)
    hn.imagine("a lighthouse at dusk", aspect_ratio="square")  # within the budget now: one request
    assert _generations(emu) == 1
    with pytest.raises(errors.InvalidInputError, match=r"more than the \$0\.007 that remains"):
        hn.imagine("a second lighthouse", aspect_ratio="square")  # $0.053 spent: $0.007 left
    assert _generations(emu) == 1


def test_the_estimate_knows_the_size_a_landscape_image_costs_more(emu: Emulator) -> None:
    """A budget between the square ($0.053) and the landscape ($0.08) price refuses a landscape image."""
    config.set("image_gen.budget_usd", 0.06)
    with pytest.raises(errors.InvalidInputError, match=r"estimated at \$0\.080") as refused:
        hn.imagine("a wide lighthouse", aspect_ratio="landscape")
    assert "nothing was sent" in str(refused.value) and emu.requests_for("openai") == []
    hn.imagine("a square lighthouse", aspect_ratio="square")  # $0.053 fits
    assert _generations(emu) == 1
    config.set("image_gen.budget_usd", 1.0)
    hn.imagine("a low one", aspect_ratio="landscape", quality="low")  # quality= changes the estimate too
    assert _generations(emu) == 2
