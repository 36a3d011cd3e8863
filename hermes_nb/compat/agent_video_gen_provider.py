"""``agent.video_gen_provider``: the video provider base class, its envelopes and file helpers."""

from __future__ import annotations

from hermes_nb.plugins.video_provider import (
    COMMON_ASPECT_RATIOS,
    COMMON_RESOLUTIONS,
    DEFAULT_ASPECT_RATIO,
    DEFAULT_RESOLUTION,
    OpenAICompatibleVideoGenProvider,
    VideoGenProvider,
    error_response,
    save_b64_video,
    save_bytes_video,
    save_url_video,
    success_response,
)
from hermes_nb.plugins.video_provider import videos_cache_dir as _videos_cache_dir

HERMES_NAME = "agent.video_gen_provider"
__all__ = [
    "COMMON_ASPECT_RATIOS",
    "DEFAULT_ASPECT_RATIO",
    "COMMON_RESOLUTIONS",
    "DEFAULT_RESOLUTION",
    "VideoGenProvider",
    "OpenAICompatibleVideoGenProvider",
    "success_response",
    "error_response",
    "save_b64_video",
    "save_bytes_video",
    "save_url_video",
    "_videos_cache_dir",
]
