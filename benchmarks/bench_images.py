"""Benchmark: keeping a generated 1536x1024 image, and what each displayed image adds to a notebook.

1. decode + verify + save (with provenance) + thumbnail, the path an OpenAI base64 answer takes
   (provider ``save_b64_image`` then the SDK's materialise step), against a baseline of plain
   ``base64.b64decode`` + ``Image.open().save()`` of the same bytes. Median over N runs; target ≤ 50 ms.
2. bytes one displayed image adds to a saved ``.ipynb``: our mimebundle (thumbnail + caption) against
   ``IPython.display.Image(filename=...)`` of the same file. Target ≤ 60 KB.

Run: ``python benchmarks/bench_images.py [N]``; prints Markdown lines for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import base64
import io
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _photo_like(width: int = 1536, height: int = 1024) -> bytes:
    """A PNG with gradients, shapes and grain: compresses like a rendered image, not noise or flat colour."""
    from PIL import Image, ImageDraw, ImageFilter

    base = Image.linear_gradient("L").resize((width, height))
    img = Image.merge(
        "RGB",
        (base, base.rotate(90).resize((width, height)), base.transpose(Image.Transpose.FLIP_LEFT_RIGHT)),
    )
    draw = ImageDraw.Draw(img)
    for i in range(24):
        x, y = (i * 97) % width, (i * 53) % height
        draw.ellipse((x, y, x + 220, y + 160), fill=((i * 40) % 256, (i * 90) % 256, (i * 150) % 256))
    img = img.filter(ImageFilter.GaussianBlur(3))
    grain = Image.effect_noise((width, height), 18).convert("RGB")
    img = Image.blend(img, grain, 0.08)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _median_ms(func, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main(runs: int = 15) -> None:
    os.environ.setdefault("HERMES_HOME", tempfile.mkdtemp(prefix="hermes-bench-"))
    from PIL import Image

    from hermes_nb import __version__, images
    from hermes_nb.images.results import ImageResult
    from hermes_nb.plugins.image_provider import save_b64_image

    raw = _photo_like()
    b64 = base64.b64encode(raw).decode("ascii")
    provenance = {
        "prompt": "a lighthouse at dusk",
        "provider": "openai",
        "model": "gpt-image-2-medium",
        "seed": None,
        "aspect_ratio": "landscape",
        "parameters": {},
        "hermes_nb_version": __version__,
    }
    scratch = Path(tempfile.mkdtemp(prefix="hermes-bench-baseline-"))

    def ours() -> None:
        path = save_b64_image(b64, prefix="openai")  # provider: decode, verify, atomic write
        kept, info, digest = images._materialise(
            str(path), prefix="openai", provenance=provenance, timeout=60
        )
        result = ImageResult(
            path=kept,
            prompt="",
            provider="openai",
            model="m",
            aspect_ratio="landscape",
            width=info.width,
            height=info.height,
            sha256=digest,
        )
        result.thumbnail_bytes()  # what a notebook displays

    def baseline() -> None:
        data = base64.b64decode(b64)
        with Image.open(io.BytesIO(data)) as img:
            img.save(scratch / "baseline.png")

    ours()  # warm imports and caches
    baseline()
    ours_ms, base_ms = _median_ms(ours, runs), _median_ms(baseline, runs)

    # -- bytes added to a saved notebook ------------------------------------------------------------

    path = save_b64_image(b64, prefix="openai")
    kept, info, digest = images._materialise(str(path), prefix="openai", provenance=provenance, timeout=60)
    result = ImageResult(
        path=kept,
        prompt=provenance["prompt"],
        provider="openai",
        model="gpt-image-2-medium",
        aspect_ratio="landscape",
        width=info.width,
        height=info.height,
        sha256=digest,
    )
    try:
        bundle = result._repr_mimebundle_()
        ours_label = "hermes_nb mimebundle (text/plain + text/html thumbnail)"
    except ImportError:  # rendering not available: the thumbnail data URI alone
        bundle = {"text/html": f'<img src="{result.thumbnail_data_uri()}"/>'}
        ours_label = "thumbnail data URI"
    try:
        from IPython.display import Image as IPyImage

        ipy = IPyImage(filename=str(kept))
        ipy_data, ipy_text = ipy.data, repr(ipy)
    except ImportError:  # same bytes: IPython embeds the whole file base64-encoded
        ipy_data, ipy_text = kept.read_bytes(), "<IPython.core.display.Image object>"
    ipy_bundle = {"image/png": base64.b64encode(ipy_data).decode("ascii"), "text/plain": ipy_text}

    def output_bytes(data: dict) -> int:
        return len(json.dumps({"output_type": "display_data", "data": data, "metadata": {}}, indent=1))

    ours_kb, ipy_kb = output_bytes(bundle) / 1024, output_bytes(ipy_bundle) / 1024
    cpu = platform.processor() or platform.machine()
    print(f"### bench_images ({runs} runs, Python {sys.version.split()[0]}, {cpu}, {os.cpu_count()} cores)")
    print()
    print("| measurement | hermes_nb | baseline | target |")
    print("|---|---|---|---|")
    print(
        f"| keep a 1536x1024 PNG ({len(raw) / 1024:.0f} KB): decode + verify + save with provenance + 256 px "
        f"thumbnail, median | {ours_ms:.1f} ms | {base_ms:.1f} ms (b64decode + Image.open().save()) "
        "| ≤ 50 ms |"
    )
    print(
        f"| bytes one displayed image adds to the .ipynb | {ours_kb:.1f} KB ({ours_label}) | {ipy_kb:.1f} KB "
        f"(IPython.display.Image) | ≤ 60 KB |"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
