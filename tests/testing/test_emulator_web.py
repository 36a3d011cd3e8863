"""Emulated web APIs (Brave, Tavily, SearXNG, Jina) and the test website, checked with plain httpx."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile

import httpx
import pytest
from PIL import Image

from hermes_nb.testing import Emulator

BRAVE = "/res/v1/web/search"
TAVILY_AUTH = {"Authorization": "Bearer emu-tavily-key"}


@pytest.fixture
def emu():
    with Emulator(seed=0) as server:
        yield server


@pytest.fixture(scope="module")
def client():
    with httpx.Client(timeout=5) as c:
        yield c


# --- Brave ------------------------------------------------------------------------------------
def _brave(client, emu, headers=None, **params):
    headers = {"X-Subscription-Token": "emu-brave-key"} if headers is None else headers
    return client.get(emu.base_url("brave") + BRAVE, params=params, headers=headers)


def test_brave_search_shape_and_headers(emu, client):
    r = _brave(client, emu, q="python notebooks", count=5)
    assert r.status_code == 200
    body = r.json()
    assert body["type"] == "search" and body["query"]["original"] == "python notebooks"
    results = body["web"]["results"]
    assert len(results) == 5
    first = results[0]
    assert {"type", "title", "url", "description", "age", "page_age", "meta_url", "profile"} <= set(first)
    assert first["type"] == "search_result" and first["url"].startswith("https://")
    assert "<strong>python</strong>" in first["description"]
    assert "position" not in first and "rank" not in first
    for name in ("x-ratelimit-limit", "x-ratelimit-policy", "x-ratelimit-remaining", "x-ratelimit-reset"):
        assert name in r.headers
    assert len(_brave(client, emu, q="python").json()["web"]["results"]) == 20  # default count


def test_brave_pagination_is_disjoint(emu, client):
    page0 = [h["url"] for h in _brave(client, emu, q="x", count=3, offset=0).json()["web"]["results"]]
    page1 = [h["url"] for h in _brave(client, emu, q="x", count=3, offset=1).json()["web"]["results"]]
    assert not set(page0) & set(page1)


@pytest.mark.parametrize(
    "params,loc",
    [
        ({"q": "x", "count": 21}, "count"),
        ({"q": "x", "count": 0}, "count"),
        ({"q": "x", "offset": 10}, "offset"),
        ({"q": ""}, "q"),
        ({"q": "x " * 60}, "q"),
    ],
)
def test_brave_rejects_bad_params_with_422_validation(emu, client, params, loc):
    r = _brave(client, emu, **params)
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["code"] == "VALIDATION" and error["meta"]["errors"][0]["loc"][-1] == loc


def test_brave_auth_failures_are_422(emu, client):
    bad = _brave(client, emu, headers={"X-Subscription-Token": emu.BAD_KEY}, q="x")
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "SUBSCRIPTION_TOKEN_INVALID"
    missing = _brave(client, emu, headers={}, q="x")
    assert missing.status_code == 422
    assert missing.json()["error"]["meta"]["errors"][0]["loc"] == ["header", "x-subscription-token"]


def test_brave_post_and_empty(emu, client):
    r = client.post(
        emu.base_url("brave") + BRAVE, json={"q": "cats", "count": 2}, headers={"X-Subscription-Token": "k"}
    )
    assert len(r.json()["web"]["results"]) == 2
    emu.fail("brave", "empty")
    assert "web" not in _brave(client, emu, q="cats").json()


# --- Tavily -----------------------------------------------------------------------------------
def test_tavily_search_shape(emu, client):
    r = client.post(
        emu.base_url("tavily") + "/search",
        headers=TAVILY_AUTH,
        json={
            "query": "llamas",
            "max_results": 3,
            "include_answer": True,
            "include_raw_content": True,
            "include_usage": True,
            "search_depth": "advanced",
        },
    )
    body = r.json()
    assert r.status_code == 200
    assert {"query", "answer", "images", "results", "response_time", "request_id", "usage"} <= set(body)
    assert len(body["results"]) == 3 and body["usage"] == {"credits": 2} and body["answer"]
    hit = body["results"][0]
    assert {"title", "url", "content", "score", "raw_content"} <= set(hit) and hit["raw_content"]
    scores = [h["score"] for h in body["results"]]
    assert scores == sorted(scores, reverse=True)
    default = client.post(emu.base_url("tavily") + "/search", headers=TAVILY_AUTH, json={"query": "llamas"})
    assert len(default.json()["results"]) == 5


def test_tavily_auth_in_body_header_or_keyless(emu, client):
    url = emu.base_url("tavily") + "/search"
    assert client.post(url, json={"query": "x", "api_key": "k"}).status_code == 200
    assert (
        client.post(url, json={"query": "x"}, headers={"X-Tavily-Access-Mode": "keyless"}).status_code == 200
    )
    missing = client.post(url, json={"query": "x"})
    assert missing.status_code == 401 and "error" in missing.json()["detail"]
    bad = client.post(url, json={"query": "x"}, headers={"Authorization": f"Bearer {emu.BAD_KEY}"})
    assert bad.status_code == 401


@pytest.mark.parametrize(
    "body", [{"query": ""}, {"query": "x", "max_results": 21}, {"query": "x", "search_depth": "deep"}]
)
def test_tavily_search_bad_input(emu, client, body):
    r = client.post(emu.base_url("tavily") + "/search", json=body, headers=TAVILY_AUTH)
    assert r.status_code == 400 and r.json()["detail"]["error"]


@pytest.mark.parametrize("status", ["432", "433", "429"])
def test_tavily_limit_codes(emu, client, status):
    emu.fail("tavily", status, retry_after=2)
    r = client.post(emu.base_url("tavily") + "/search", json={"query": "x"}, headers=TAVILY_AUTH)
    assert r.status_code == int(status) and r.json()["detail"]["error"]


def test_tavily_extract_reports_failures_per_url(emu, client):
    good = emu.page_url("/site/articles/hello-world.html")
    urls = [good, emu.page_url("/site/missing.html"), "https://down.invalid/x", "https://docs.example.com/a"]
    r = client.post(emu.base_url("tavily") + "/extract", json={"urls": urls}, headers=TAVILY_AUTH)
    body = r.json()
    assert r.status_code == 200 and {"results", "failed_results", "response_time", "request_id"} <= set(body)
    assert [x["url"] for x in body["results"]] == [good, "https://docs.example.com/a"]
    assert "Hello, World" in body["results"][0]["raw_content"]
    assert [x["url"] for x in body["failed_results"]] == urls[1:3]
    assert all(x["error"] for x in body["failed_results"])
    single = client.post(emu.base_url("tavily") + "/extract", json={"urls": good}, headers=TAVILY_AUTH)
    assert len(single.json()["results"]) == 1


def test_tavily_crawl_follows_site_links_within_limits(emu, client):
    url = emu.base_url("tavily") + "/crawl"
    r = client.post(
        url, json={"url": emu.page_url("/site/"), "max_depth": 1, "limit": 4}, headers=TAVILY_AUTH
    )
    body = r.json()
    assert body["base_url"] == emu.page_url("/site/") and len(body["results"]) == 4
    assert body["results"][0]["url"] == emu.page_url("/site/")
    assert all(x["url"].startswith(emu.url + "/site/") and "raw_content" in x for x in body["results"])
    shallow = client.post(url, json={"url": emu.page_url("/site/"), "max_depth": 0}, headers=TAVILY_AUTH)
    assert shallow.status_code == 400


# --- SearXNG ----------------------------------------------------------------------------------
def test_searxng_json_results_carry_scores_unsorted(emu, client):
    r = client.get(emu.base_url("searxng") + "/search", params={"q": "rust", "format": "json"})
    body = r.json()
    assert r.status_code == 200
    assert {
        "query",
        "results",
        "answers",
        "corrections",
        "infoboxes",
        "suggestions",
        "unresponsive_engines",
    } <= set(body)
    results = body["results"]
    assert len(results) == 10
    assert {"url", "title", "content", "engine", "engines", "score", "category", "parsed_url"} <= set(
        results[0]
    )
    scores = [x["score"] for x in results]
    assert scores != sorted(scores, reverse=True)  # the client must sort by score
    page2 = client.get(emu.base_url("searxng") + "/", params={"q": "rust", "format": "json", "pageno": 2})
    assert not {x["url"] for x in page2.json()["results"]} & {x["url"] for x in results}


def test_searxng_errors_and_switch(emu, client):
    url = emu.base_url("searxng") + "/search"
    assert client.get(url, params={"format": "json"}).json() == {"error": "No query"}
    assert client.get(url, params={"q": "x", "format": "csv"}).status_code == 403
    emu.searxng_json_enabled = False
    r = client.get(url, params={"q": "x", "format": "json"})
    assert r.status_code == 403 and r.headers["content-type"].startswith("text/html")
    emu.searxng_json_enabled = True
    form = client.post(url, data={"q": "x", "format": "json"})
    assert form.status_code == 200 and form.json()["results"]
    emu.fail("searxng", "500")
    assert client.get(url, params={"q": "x", "format": "json"}).json() == {"error": "search error"}


# --- Jina -------------------------------------------------------------------------------------
def test_jina_reader_text_and_json(emu, client):
    target = emu.page_url("/site/articles/data-science.html")
    text = client.get(emu.base_url("jina") + "/" + target).text
    assert text.startswith("Title: Data science with plain Python\n")
    assert f"URL Source: {target}" in text and "Markdown Content:\n# Data science" in text
    data = client.get(emu.base_url("jina") + "/" + target, headers={"Accept": "application/json"}).json()
    assert data["code"] == 200 and data["data"]["url"] == target and data["data"]["content"]
    posted = client.post(emu.base_url("jina") + "/", json={"url": "https://docs.example.com/page?x=1"})
    assert "URL Source: https://docs.example.com/page?x=1" in posted.text
    query = client.get(emu.base_url("jina") + "/https://docs.example.com/page", params={"x": "1"})
    assert "URL Source: https://docs.example.com/page?x=1" in query.text


def test_jina_errors(emu, client):
    bad = client.get(
        emu.base_url("jina") + "/https://a.example/", headers={"Authorization": "Bearer bad-key"}
    )
    assert bad.status_code == 401 and bad.json()["name"] == "AuthenticationFailedError"
    failed = client.get(emu.base_url("jina") + "/https://down.invalid/")
    assert failed.status_code == 422 and failed.json()["data"] is None
    emu.fail("jina", "429", retry_after=5)
    limited = client.get(emu.base_url("jina") + "/https://a.example/")
    assert limited.status_code == 429 and limited.headers["retry-after"] == "5"
    assert limited.json()["status"] == 42903


# --- the website ------------------------------------------------------------------------------
def test_site_index_and_article_metadata(emu, client):
    index = client.get(emu.page_url("/site/")).text
    assert '<html lang="en">' in index and "/site/articles/hello-world.html" in index
    article = client.get(emu.page_url("/site/articles/hello-world.html"))
    assert article.headers["content-type"].startswith("text/html")
    assert "<title>Hello, World: a first notebook</title>" in article.text
    assert 'name="author" content="Ada Lovelace"' in article.text and "2024-01-15" in article.text
    assert client.get(emu.page_url("/site/articles/anything-else.html")).status_code == 200


@pytest.mark.parametrize(
    "path,ctype",
    [
        ("/site/plain.txt", "text/plain"),
        ("/site/readme.md", "text/markdown"),
        ("/site/data.json", "application/json"),
        ("/site/data.csv", "text/csv"),
        ("/site/feed.rss", "application/rss+xml"),
        ("/site/feed.atom", "application/atom+xml"),
        ("/site/paper.pdf", "application/pdf"),
        ("/site/archive.zip", "application/octet-stream"),
        ("/site/image.png", "image/png"),
        ("/robots.txt", "text/plain"),
    ],
)
def test_site_content_types(emu, client, path, ctype):
    r = client.get(emu.page_url(path))
    assert r.status_code == 200 and r.headers["content-type"].startswith(ctype) and r.content


def test_site_special_pages(emu, client):
    assert len(client.get(emu.page_url("/site/long.html")).text) > 100_000
    js = client.get(emu.page_url("/site/js-heavy.html")).text
    assert js.count("<script") > 3
    assert "Disallow: /site/private/" in client.get(emu.page_url("/robots.txt")).text
    cp = client.get(emu.page_url("/site/cp1252.html"))
    assert "windows-1252" in cp.headers["content-type"] and "Café crème" in cp.content.decode("cp1252")
    sjis = client.get(emu.page_url("/site/sjis.html"))
    assert "charset" not in sjis.headers["content-type"]
    assert 'charset="shift_jis"' in sjis.content.decode("shift_jis") and "日本語" in sjis.content.decode(
        "shift_jis"
    )
    assert client.get(emu.page_url("/site/missing.html")).status_code == 404
    for feed in ("/site/feed.rss", "/site/feed.atom"):
        ET.fromstring(client.get(emu.page_url(feed)).content)
    assert zipfile.ZipFile(io.BytesIO(client.get(emu.page_url("/site/archive.zip")).content)).namelist()
    Image.open(io.BytesIO(client.get(emu.page_url("/site/image.png")).content)).verify()


def test_site_pdf_is_valid_and_deterministic(emu, client):
    pypdf = pytest.importorskip("pypdf")
    data = client.get(emu.page_url("/site/paper.pdf")).content
    reader = pypdf.PdfReader(io.BytesIO(data))
    assert "Deterministic PDF text" in reader.pages[0].extract_text()
    assert data == client.get(emu.page_url("/site/paper.pdf")).content


def test_site_redirects(emu, client):
    r = client.get(emu.page_url("/site/redirect/start"), follow_redirects=True)
    assert r.status_code == 200 and len(r.history) == 3 and r.url.path == "/site/articles/hello-world.html"
    private = client.get(emu.page_url("/site/redirect-private"))
    assert private.status_code == 302 and private.headers["location"] == "http://10.0.0.1/"
    with pytest.raises(httpx.TooManyRedirects):
        client.get(emu.page_url("/site/redirect/loop"), follow_redirects=True)
    assert "location" not in client.get(emu.page_url("/site/redirect/no-location")).headers
