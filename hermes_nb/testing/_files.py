"""Short-lived image files served at ``/files/<id>.<ext>`` (xAI and fal hand out such URLs)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_nb.testing._wire import Api, Call, Response, retry_after_header

if TYPE_CHECKING:
    from hermes_nb.testing._server import Emulator

__all__ = ["APIS", "FilesApi", "store_file"]

_MAX_FILES = 512  # oldest files are forgotten beyond this, so a long benchmark cannot grow memory


@dataclass
class _File:
    data: bytes
    mime: str
    created: float
    downloads_left: int | None


def store_file(emu: Emulator, data: bytes, ext: str, mime: str, *, ephemeral: bool = True) -> str:
    """Keep ``data`` and return its URL; ephemeral files obey ``emu.file_max_downloads``.

    Every file expires ``emu.file_ttl_s`` seconds after creation (measured with ``emu.clock``).
    """
    digest = hashlib.sha256(data).hexdigest()[:16]
    with emu.state_lock:
        files: dict[str, _File] = emu.state.setdefault("files", {})
        counter = emu.state["file_counter"] = emu.state.get("file_counter", 0) + 1
        file_id = f"{digest}-{counter}"  # unique even when two answers carry the same bytes
        files[file_id] = _File(data, mime, emu.clock(), emu.file_max_downloads if ephemeral else None)
        while len(files) > _MAX_FILES:
            files.pop(next(iter(files)))
    return f"{emu.url}/files/{file_id}.{ext}"


class FilesApi:
    """``GET /files/<id>.<ext>``: 404 once expired or downloaded ``file_max_downloads`` times."""

    name = "files"

    def handle(self, call: Call) -> Response:
        emu = call.emu
        file_id = call.request.path.rsplit("/", 1)[-1].split(".", 1)[0]
        with emu.state_lock:
            files: dict[str, _File] = emu.state.setdefault("files", {})
            item = files.get(file_id)
            if item is None or emu.clock() - item.created > emu.file_ttl_s:
                files.pop(file_id, None)
                return self.error(call, 404, None)
            if call.request.method == "GET" and item.downloads_left is not None:
                item.downloads_left -= 1
                if item.downloads_left <= 0:
                    files.pop(file_id, None)
        return Response(200, b"" if call.empty else item.data, item.mime)

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        headers = retry_after_header(retry_after)
        return Response.text("<Error><Code>NoSuchKey</Code></Error>", status, "application/xml", headers)


APIS: list[Api] = [FilesApi()]
