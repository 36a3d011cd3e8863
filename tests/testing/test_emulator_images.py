"""Emulated image APIs (OpenAI, xAI, fal) and the ephemeral /files store, checked with plain httpx."""

from __future__ import annotations

import base64
import io

import httpx
import pytest
from PIL import Image

from hermes_nb.testing import Emulator

OPENAI = {"Authorization": "Bearer emu-openai-key"}
XAI = {"Authorization": "Bearer emu-xai-key"}
FAL = {"Authorization": "Key emu-fal-key"}


@pytest.fixture
def emu():
    with Emulator(seed=0) as server:
        yield server


@pytest.fixture(scope="module")
def client():
    with httpx.Client(timeout=10) as c:
        yield c


def _image(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def _openai(client, emu, headers=OPENAI, **body):
    body.setdefault("model", "gpt-image-2")
    body.setdefault("prompt", "a red fox")
    return client.post(emu.base_url("openai") + "/images/generations", json=body, headers=headers)


# --- OpenAI -----------------------------------------------------------------------------------
def test_openai_generation_shape(emu, client):
    r = _openai(client, emu, size="1536x1024", quality="low", n=2)
    body = r.json()
    assert r.status_code == 200 and "x-request-id" in r.headers
    assert {"created", "background", "output_format", "quality", "size", "data", "usage"} <= set(body)
    assert body["size"] == "1536x1024" and body["quality"] == "low" and len(body["data"]) == 2
    assert body["usage"]["output_tokens"] == 800  # 400 low-quality tokens per 1536x1024 image
    assert body["usage"]["total_tokens"] == body["usage"]["input_tokens"] + 800
    image = _image(base64.b64decode(body["data"][0]["b64_json"]))
    assert image.size == (1536, 1024) and image.format == "PNG"
    assert body["data"][0]["b64_json"] != body["data"][1]["b64_json"]


@pytest.mark.parametrize("fmt,pil", [("jpeg", "JPEG"), ("webp", "WEBP"), ("png", "PNG")])
def test_openai_output_formats(emu, client, fmt, pil):
    body = _openai(client, emu, size="1024x1024", output_format=fmt).json()
    assert _image(base64.b64decode(body["data"][0]["b64_json"])).format == pil


def test_openai_is_deterministic(client):
    with Emulator(seed=0) as a, Emulator(seed=0) as b:
        first = _openai(client, a, size="1024x1024").json()["data"][0]["b64_json"]
        assert first == _openai(client, b, size="1024x1024").json()["data"][0]["b64_json"]
        assert (
            first != _openai(client, a, size="1024x1024", prompt="a blue fox").json()["data"][0]["b64_json"]
        )


def test_openai_custom_sizes_for_gpt_image_2(emu, client):
    ok = _openai(client, emu, size="1280x720")
    assert ok.status_code == 200 and _image(base64.b64decode(ok.json()["data"][0]["b64_json"])).size == (
        1280,
        720,
    )
    for size in ("1000x1000", "3840x1024", "512x512", "big"):
        r = _openai(client, emu, size=size)
        assert r.status_code == 400 and r.json()["error"]["param"] == "size"
    assert _openai(client, emu, model="gpt-image-1.5", size="1280x720").status_code == 400


def test_openai_moderation(emu, client):
    r = _openai(client, emu, prompt=f"something {emu.MODERATION_WORD}")
    error = r.json()["error"]
    assert r.status_code == 400 and error["code"] == "moderation_blocked"
    assert error["type"] == "image_generation_user_error"


@pytest.mark.parametrize("model", ["dall-e-2", "dall-e-3", "gpt-image-1", "gpt-image-9"])
def test_openai_retired_and_unknown_models(emu, client, model):
    r = _openai(client, emu, model=model)
    assert r.status_code == 404 and r.json()["error"]["code"] == "model_not_found"


def test_openai_legacy_flag_and_missing_model(emu, client):
    body = {"prompt": "x"}
    r = client.post(emu.base_url("openai") + "/images/generations", json=body, headers=OPENAI)
    assert r.status_code == 404  # omitted model means dall-e-2, which is retired
    emu.allow_legacy_models = True
    assert _openai(client, emu, model="dall-e-3", size="1024x1024").status_code == 200


def test_openai_auth(emu, client):
    bad = _openai(client, emu, headers={"Authorization": "Bearer bad-key"})
    assert bad.status_code == 401 and bad.json()["error"]["code"] == "invalid_api_key"
    assert "bad-key" not in bad.text
    missing = _openai(client, emu, headers={})
    assert missing.status_code == 401 and "API key" in missing.json()["error"]["message"]


@pytest.mark.parametrize(
    "extra,param",
    [
        ({"n": 11}, "n"),
        ({"quality": "ultra"}, "quality"),
        ({"output_format": "gif"}, "output_format"),
        ({"background": "transparent"}, "background"),
        ({"response_format": "url"}, "response_format"),
        ({"prompt": ""}, "prompt"),
    ],
)
def test_openai_bad_params(emu, client, extra, param):
    r = _openai(client, emu, **extra)
    assert r.status_code == 400 and r.json()["error"]["param"] == param


def test_openai_edits_multipart(emu, client):
    png = base64.b64decode(_openai(client, emu, size="1024x1024").json()["data"][0]["b64_json"])
    files = [("image[]", ("a.png", png, "image/png")), ("image[]", ("b.png", png, "image/png"))]
    r = client.post(
        emu.base_url("openai") + "/images/edits",
        data={"model": "gpt-image-2", "prompt": "hat"},
        files=files,
        headers=OPENAI,
    )
    assert r.status_code == 200 and r.json()["usage"]["input_tokens_details"]["image_tokens"] > 0
    assert _image(base64.b64decode(r.json()["data"][0]["b64_json"])).size == (1024, 1024)
    bad = client.post(
        emu.base_url("openai") + "/images/edits",
        data={"model": "gpt-image-2", "prompt": "hat"},
        files=[("image", ("a.png", b"not an image", "image/png"))],
        headers=OPENAI,
    )
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "image"
    none = client.post(
        emu.base_url("openai") + "/images/edits",
        data={"model": "gpt-image-2", "prompt": "x"},
        files=[("mask", ("m.png", png, "image/png"))],
        headers=OPENAI,
    )
    assert none.status_code == 400


def test_openai_rate_limit_fault_headers(emu, client):
    emu.fail("openai", "429", retry_after=3)
    r = _openai(client, emu)
    assert r.status_code == 429 and r.headers["retry-after"] == "3" and r.headers["retry-after-ms"] == "3000"
    assert (
        r.json()["error"]["code"] == "rate_limit_exceeded" and "x-ratelimit-remaining-requests" in r.headers
    )


# --- xAI --------------------------------------------------------------------------------------
def _xai(client, emu, headers=XAI, path="/images/generations", **body):
    body.setdefault("model", "grok-imagine-image")
    body.setdefault("prompt", "a lighthouse")
    return client.post(emu.base_url("xai") + path, json=body, headers=headers)


def test_xai_url_response_and_single_download(emu, client):
    r = _xai(client, emu, aspect_ratio="16:9")
    body = r.json()
    item = body["data"][0]
    assert r.status_code == 200 and body["usage"]["cost_in_usd_ticks"] == 200_000_000
    assert item["mime_type"] == "image/jpeg" and item["revised_prompt"] and item["b64_json"] is None
    assert item["url"].startswith(emu.url + "/files/") and item["url"].endswith(".jpg")
    first = client.get(item["url"])
    assert first.status_code == 200 and _image(first.content).size == (1024, 576)
    assert client.get(item["url"]).status_code == 404  # ephemeral: gone after the first download


def test_xai_url_expiry_uses_the_clock(emu, client):
    now = [1000.0]
    emu.clock = lambda: now[0]
    emu.file_max_downloads = None
    emu.file_ttl_s = 30
    url = _xai(client, emu).json()["data"][0]["url"]
    assert client.get(url).status_code == 200 and client.get(url).status_code == 200
    now[0] += 31
    assert client.get(url).status_code == 404


def test_xai_b64_and_dimensions(emu, client):
    body = _xai(
        client,
        emu,
        response_format="b64_json",
        aspect_ratio="9:16",
        resolution="2k",
        model="grok-imagine-image-quality",
    ).json()
    encoded = body["data"][0]["b64_json"]
    assert encoded.startswith("data:image/jpeg;base64,") and body["usage"]["cost_in_usd_ticks"] == 500_000_000
    assert _image(base64.b64decode(encoded.split(",", 1)[1])).size == (1152, 2048)
    emu.xai_b64_data_uri = False
    plain = _xai(client, emu, response_format="b64_json").json()["data"][0]["b64_json"]
    assert _image(base64.b64decode(plain)).size == (1024, 1024)


def test_xai_errors(emu, client):
    bad = _xai(client, emu, headers={"Authorization": "Bearer bad-key"})
    assert bad.status_code == 400
    assert bad.json()["code"] == "Client specified an invalid argument"
    assert bad.json()["error"].startswith("Incorrect API key provided")
    assert _xai(client, emu, headers={}).status_code == 400
    deprecated = _xai(client, emu, model="grok-2-image")
    assert deprecated.status_code == 500 and "grok-imagine-image" in deprecated.json()["error"]
    assert _xai(client, emu, model="grok-imagine-image-pro").status_code == 200
    assert _xai(client, emu, size="1024x1024").json()["error"] == "Argument not supported: size"
    moderated = _xai(client, emu, prompt=emu.MODERATION_WORD)
    assert moderated.status_code == 400 and "content moderation" in moderated.json()["error"]


def test_xai_edits(emu, client):
    jpeg = client.get(_xai(client, emu).json()["data"][0]["url"]).content
    uri = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode()
    r = _xai(client, emu, path="/images/edits", model="grok-imagine-image-quality", image={"url": uri})
    assert r.status_code == 200 and r.json()["data"]
    many = _xai(client, emu, path="/images/edits", images=[{"url": uri}] * 4)
    assert many.status_code == 400
    broken = _xai(client, emu, path="/images/edits", image={"url": "data:image/png;base64,AAAA"})
    assert broken.status_code == 400


# --- fal --------------------------------------------------------------------------------------
def _submit(client, emu, model="fal-ai/flux/schnell", headers=FAL, **body):
    body.setdefault("prompt", "a mountain")
    return client.post(f"{emu.base_url('fal')}/{model}", json=body, headers=headers)


def test_fal_job_life_cycle(emu, client):
    job = _submit(client, emu, image_size="landscape_16_9", seed=42).json()
    assert {"request_id", "response_url", "status_url", "cancel_url", "queue_position"} <= set(job)
    # status and result live under owner/app, without the model's subpath
    assert job["status_url"] == f"{emu.base_url('fal')}/fal-ai/flux/requests/{job['request_id']}/status"
    premature = client.get(job["response_url"], headers=FAL)
    assert premature.status_code == 400
    answers = [client.get(job["status_url"], headers=FAL, params={"logs": 1}) for _ in range(3)]
    assert [a.status_code for a in answers] == [202, 202, 200]  # fal: 202 until complete
    states = [a.json() for a in answers]
    assert [s["status"] for s in states] == ["IN_QUEUE", "IN_PROGRESS", "COMPLETED"]
    assert "queue_position" in states[0] and states[1]["logs"] and "metrics" in states[2]
    r = client.get(job["response_url"], headers=FAL)
    result = r.json()
    assert {"images", "timings", "seed", "has_nsfw_concepts", "prompt"} <= set(result)
    assert (
        result["seed"] == 42 and result["has_nsfw_concepts"] == [False] and result["prompt"] == "a mountain"
    )
    image = result["images"][0]
    assert (image["width"], image["height"], image["content_type"]) == (1024, 576, "image/jpeg")
    assert _image(client.get(image["url"]).content).size == (1024, 576)
    assert client.get(image["url"]).status_code == 200  # fal CDN files survive a second download
    assert r.headers["x-fal-billable-units"] and r.headers["x-fal-request-id"] == job["request_id"]


def test_fal_subpath_status_is_404(emu, client):
    job = _submit(client, emu).json()
    wrong = f"{emu.base_url('fal')}/fal-ai/flux/schnell/requests/{job['request_id']}/status"
    assert client.get(wrong, headers=FAL).status_code == 404
    unknown = f"{emu.base_url('fal')}/fal-ai/flux/requests/00000000-0000-0000-0000-000000000000/status"
    assert client.get(unknown, headers=FAL).status_code == 404


def test_fal_polls_setting_and_never_finishing(emu, client):
    emu.fal_polls_to_complete = 1
    job = _submit(client, emu).json()
    assert client.get(job["status_url"], headers=FAL).json()["status"] == "COMPLETED"
    emu.fal_polls_to_complete = None
    job = _submit(client, emu).json()
    states = {client.get(job["status_url"], headers=FAL).json()["status"] for _ in range(8)}
    assert "COMPLETED" not in states
    cancel = client.put(job["cancel_url"], headers=FAL)
    assert cancel.json() == {"status": "CANCELLATION_REQUESTED"}
    assert client.get(job["response_url"], headers=FAL).status_code == 400


def test_fal_determinism_and_moderation(emu, client):
    emu.fal_polls_to_complete = 1

    def run(**body):
        job = _submit(client, emu, image_size={"width": 320, "height": 240}, **body).json()
        client.get(job["status_url"], headers=FAL)
        result = client.get(job["response_url"], headers=FAL).json()
        return result, client.get(result["images"][0]["url"]).content

    (_, a), (_, b), (_, c) = run(seed=1), run(seed=1), run(seed=2)
    assert a == b and a != c and _image(a).size == (320, 240)
    flagged, data = run(seed=1, prompt=f"a {emu.MODERATION_WORD} thing", output_format="png")
    assert flagged["has_nsfw_concepts"] == [True] and _image(data).getextrema() == ((0, 0), (0, 0), (0, 0))


def test_fal_auth_and_validation(emu, client):
    missing = _submit(client, emu, headers={})
    assert missing.status_code == 401 and missing.json()["detail"]
    assert _submit(client, emu, headers={"Authorization": "Key bad-key"}).status_code == 401
    assert _submit(client, emu, headers={"Authorization": "Bearer emu-fal-key"}).status_code == 401
    for body in ({"prompt": ""}, {"image_size": "huge"}, {"num_images": 9}, {"seed": "x"}):
        r = _submit(client, emu, **body)
        assert r.status_code == 422 and isinstance(r.json()["detail"], list)
        assert {"loc", "msg", "type"} <= set(r.json()["detail"][0])
    edit = _submit(client, emu, model="fal-ai/flux-2/klein/9b/edit")
    assert edit.status_code == 422 and edit.json()["detail"][0]["loc"] == ["body", "image_urls"]


def test_fal_default_hermes_model_paths(emu, client):
    job = _submit(client, emu, model="fal-ai/flux-2/klein/9b").json()
    assert "/fal-ai/flux-2/requests/" in job["status_url"]
    assert emu.requests_for("fal")[-1].headers["authorization"] == "Key emu-fal-key"


def test_fakes_size_tables_read_name_equals_width_x_height_in_order():
    from hermes_nb.testing.fakes import sizes

    table = sizes("16:9=1344x768 1:1=1024x1024\n square_hd=1024x1024")
    assert table == {"16:9": (1344, 768), "1:1": (1024, 1024), "square_hd": (1024, 1024)}
    assert list(table) == ["16:9", "1:1", "square_hd"]
    for bad in ("1:1=1024", "1:1=axb", "=1x1", "1:1=1x1 1:1=2x2"):
        with pytest.raises(ValueError, match="name=WIDTHxHEIGHT"):
            sizes(bad)


def test_fakes_retry_after_header_is_whole_seconds_or_nothing():
    from hermes_nb.testing.fakes import retry_after_header

    assert retry_after_header(2.9) == {"Retry-After": "2"}
    assert retry_after_header(0) == {"Retry-After": "0"}
    assert retry_after_header(None) == {}
