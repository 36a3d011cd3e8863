"""Contract violations are errors: PARSE_ERROR naming the provider, what came back and the expected shape."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import errors
from hermes_nb.plugins.contracts import EXPECTED, describe
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.web.envelopes import parse_crawl_envelope, parse_extract_envelope, parse_search_envelope


class Answers(WebSearchProvider):
    """A plugin provider that answers whatever the test sets."""

    tier = "keyless"

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    @property
    def name(self) -> str:
        return "rogue"

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> Any:
        return self.answer

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        return self.answer

    def crawl(self, url: str, **kwargs: Any) -> Any:
        return self.answer


@pytest.fixture(autouse=True)
def registered_only(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    monkeypatch.setattr(image_providers, "loader", lambda kind, name: None)
    hn.config.set("cache.mode", "off")
    yield


def _violation(call: Any, *needles: str) -> errors.ParseError:
    with pytest.raises(errors.ParseError) as info:
        call()
    exc = info.value
    assert exc.code == "PARSE_ERROR" and exc.provider == "rogue" and "'rogue'" in exc.message
    for needle in needles:
        assert needle in exc.message, exc.message
    return exc


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        ([{"url": "https://a.test/", "title": "a"}], "list"),
        ({"success": True, "data": {"webz": [{"url": "https://a.test/"}]}}, "'webz'"),
        ({"success": True, "data": [{"url": "https://a.test/"}]}, "'data' is missing or not an object"),
        ({"success": True}, "'data' is missing"),
        ({"success": True, "data": {"web": "https://a.test/"}}, "'data.web' is missing or not a list"),
        ({"success": True, "data": {"web": [["https://a.test/"]]}}, "data.web[0] is a list"),
        (None, "NoneType"),
        ("ok", "str"),
    ],
    ids=["bare-list", "webz", "data-list", "no-data", "web-str", "row-list", "none", "string"],
)
def test_search_answers_outside_the_envelope(answer: Any, needle: str) -> None:
    web_providers.register(Answers(answer))
    exc = _violation(lambda: hn.search("q", backend="rogue"), needle, EXPECTED["search"])
    assert "returned" in exc.message


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        (42, "int: 42"),
        ({"success": True, "data": {"pages": []}}, "no list of per-URL results"),
        (["https://a.test/"], "result 0 is a str"),
        ("<html>page</html>", "str"),
    ],
    ids=["int", "dict-without-rows", "row-str", "markup"],
)
def test_extract_answers_outside_the_envelope(answer: Any, needle: str) -> None:
    web_providers.register(Answers(answer))
    _violation(lambda: hn.extract(["https://a.test/"], backend="rogue"), needle, EXPECTED["extract"])


@pytest.mark.parametrize("answer", [42, {"pages": []}, {"results": [1, 2]}], ids=["int", "no-rows", "rows"])
def test_crawl_answers_outside_the_envelope(answer: Any) -> None:
    web_providers.register(Answers(answer))
    _violation(lambda: hn.crawl("https://a.test/", depth=0, limit=3, backend="rogue"), EXPECTED["crawl"])


def test_documented_shapes_still_parse() -> None:
    hits, _ = parse_search_envelope({"success": True, "data": {"web": [{"url": "https://a.test/"}]}}, "p", 5)
    assert [h.url for h in hits] == ["https://a.test/"]
    for env in ([{"url": "https://a.test/"}], {"success": True, "data": [{"url": "https://a.test/"}]},
                {"results": [{"url": "https://a.test/"}]}):
        assert parse_extract_envelope(env, ["https://a.test/"], "p")[0].error is None
    assert len(parse_crawl_envelope({"results": [{"url": "https://a.test/"}]}, "p")) == 1


class _NeverLookedAt:
    """An item past the limit: the parser would report it as a violation if it ever looked."""


def test_a_5000_item_answer_to_limit_5_is_cut_without_walking_the_rest() -> None:
    items: list[Any] = [{"url": f"https://a.test/{i}", "title": str(i)} for i in range(5)]
    items += [_NeverLookedAt() for _ in range(4995)]
    web_providers.register(Answers({"success": True, "data": {"web": items}}))
    result = hn.search("q", limit=5, backend="rogue")
    assert [h.position for h in result] == [1, 2, 3, 4, 5]
    rows = [{"url": f"https://a.test/{i}", "content": "x" * 100} for i in range(5000)]
    assert len(parse_crawl_envelope({"results": rows}, "p", limit=5)) == 5


def test_what_came_back_is_described_briefly_whatever_its_size() -> None:
    huge = {"success": True, "data": {"webz": [{"url": "https://a.test/", "body": "x" * 10_000}] * 5000}}
    text = describe(huge)
    assert text.startswith("dict of 2 items") and len(text) < 400
    assert describe(list(range(5000))).startswith("list of 5000 items")


class ImageAnswers(ImageGenProvider):
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    @property
    def name(self) -> str:
        return "rogue"

    def is_available(self) -> bool:
        return True

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> Any:
        return self.answer


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        ("https://img.test/cat.png", "not an envelope object"),
        ({"image": "https://img.test/cat.png"}, "'success' is missing"),
        ({"success": "yes", "image": "https://img.test/cat.png"}, "'success' is missing or not true/false"),
        ({"success": True, "image": None}, "'image' is empty or not a string"),
        ({"success": True, "image": 42}, "'image' is empty or not a string"),
    ],
    ids=["bare-url", "no-success", "success-str", "image-none", "image-int"],
)
def test_image_answers_outside_the_envelope(answer: Any, needle: str) -> None:
    image_providers.register(ImageAnswers(answer))
    _violation(lambda: hn.imagine("a cat", backend="rogue"), needle, EXPECTED["image"])
