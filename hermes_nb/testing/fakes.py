"""What a plugin's ``fake.py`` is built from: the emulator's wire types and shared vendor-API helpers.

A provider plugin teaches the emulator its vendor's API with a ``fake.py`` beside its ``plugin.yaml``::

    from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits

    class AcmeApi:
        name = "acme"                                   # requests are logged under this name

        def handle(self, call: Call) -> Response:      # call.subpath is the path after /acme
            if call.header("x-api-key") in (None, call.emu.BAD_KEY) or call.auth_fail:
                return Response.json({"error": "bad key"}, 401)
            found = [] if call.empty else hits(call, call.request.param("q") or "", 5)
            return Response.json({"results": found})

        def error(self, call: Call, status: int, retry_after: float | None) -> Response:
            return Response.json({"error": f"status {status}"}, status)  # the vendor's error body

    def register(routes: FakeRoutes) -> None:
        routes.add(AcmeApi())      # served under /acme; use_emulator sets web.acme.base_url to it

``use_emulator`` also sets each secret in the manifest's ``requires_env`` to ``emu-<provider>-key``
(``routes.keys(...)`` chooses others, ``routes.keys()`` none); ``routes.address(name, path,
config_key=...)`` names a further endpoint (a keyless MCP URL), ``routes.option(name, default)`` a knob
tests set as ``emu.<name>``. State a fake keeps between calls (jobs, counters) goes in
``call.emu.state`` under ``call.emu.state_lock``; ``call.emu.rng(...)`` gives deterministic answers.
An ``error`` answer adds ``retry_after_header(retry_after)`` where its vendor sends ``Retry-After``;
an image vendor's size table is written ``sizes("1:1=1024x1024 16:9=1344x768")``.
The emulator finds ``fake.py`` in the bundled plugins and in enabled user plugins. A provider never
imports its ``fake.py``.
"""

from __future__ import annotations

from hermes_nb.testing._files import store_file
from hermes_nb.testing._images import (
    MIME,
    blackout,
    decode_data_uri,
    is_image,
    parse_multipart,
    render,
    sizes,
)
from hermes_nb.testing._mcp import Tool, ToolFailedError, serve_mcp
from hermes_nb.testing._pages import html_to_markdown, read_url, site_response, words
from hermes_nb.testing._registry import FakeRoutes
from hermes_nb.testing._results import hits, request_id
from hermes_nb.testing._video import clip as video_clip
from hermes_nb.testing._wire import Api, Call, RecordedRequest, Response, mask_key, retry_after_header

__all__ = [
    # registration and wire types
    "FakeRoutes",
    "Api",
    "Call",
    "Response",
    "RecordedRequest",
    "retry_after_header",
    # search results and pages of the emulated website
    "hits",
    "request_id",
    "read_url",
    "site_response",
    "html_to_markdown",
    "words",
    # images and served files
    "render",
    "blackout",
    "sizes",
    "MIME",
    "is_image",
    "parse_multipart",
    "decode_data_uri",
    "store_file",
    # videos: a small real MP4, different per key
    "video_clip",
    # keys and keyless MCP endpoints
    "mask_key",
    "serve_mcp",
    "Tool",
    "ToolFailedError",
]
