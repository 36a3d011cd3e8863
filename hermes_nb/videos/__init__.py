"""The video layer: the ``hn.video`` facade, provider selection and typed video results.

Named ``videos`` as ``images`` is: ``hn.video`` is the function, and a subpackage of the same name
would replace it on the package once imported.

``sdk`` (``video`` / ``avideo``; ``video_many`` is in ``hermes_nb.batch``), ``selection`` (the one
video-provider resolver), ``caching`` (what a request is, the store rows), ``results``
(``VideoResult``), ``listing`` (``hn.providers("video_gen")``).
"""

from hermes_nb.videos.results import VideoResult, from_record, provenance_of, to_record
from hermes_nb.videos.sdk import avideo, image_source, video
from hermes_nb.videos.selection import describe_video_providers, resolve_video_provider

__all__ = [
    "video",
    "avideo",
    "image_source",
    "VideoResult",
    "resolve_video_provider",
    "describe_video_providers",
    "provenance_of",
    "to_record",
    "from_record",
]
