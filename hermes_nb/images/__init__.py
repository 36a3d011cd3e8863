"""The image layer: the ``hn.imagine`` facade, provider selection and typed image results.

``sdk`` (``imagine`` / ``aimagine``; ``imagine_many`` is in ``hermes_nb.batch``), ``selection``
(the one image-provider resolver), ``results`` (``ImageResult`` and ``ImageGallery``).
"""

from hermes_nb.images.sdk import (
    aimagine,
    describe_image_providers,
    error_from_envelope,
    from_record,
    imagine,
    provenance_of,
    resolve_image_provider,
    resolve_model,
    to_record,
)

__all__ = [
    "imagine",
    "aimagine",
    "resolve_image_provider",
    "describe_image_providers",
    "resolve_model",
    "error_from_envelope",
    "provenance_of",
    "to_record",
    "from_record",
]
