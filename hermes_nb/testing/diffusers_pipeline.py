"""A random Stable Diffusion pipeline built offline, for the ``diffusers`` provider's tests and benchmark.

``tiny_sd_pipeline(folder)`` writes a complete ``StableDiffusionPipeline`` (UNet, VAE, CLIP text
encoder, DDIM scheduler, a tokenizer written by hand) with random weights and returns its path, which
``image_gen.diffusers.model`` accepts. Nothing is downloaded. The layer sizes follow diffusers' own
dummy-pipeline tests; ``width`` scales the UNet's and VAE's channels (4 → about 250 kB and milliseconds per
image; 64 → about 25 MB, closer to how a real model spends its time). Needs ``pip install
'hermes_nb[diffusers]'``.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["tiny_sd_pipeline"]

#: Byte-pair vocabulary of the hand-written tokenizer: enough for prompts such as "a lower tower".
_VOCAB = [
    *("l", "o", "w", "e", "r", "s", "t", "i", "d", "n", "lo"),
    *("l</w>", "w</w>", "r</w>", "t</w>", "low</w>", "er</w>", "lowest</w>", "newer</w>", "wider"),
    *("<unk>", "<|startoftext|>", "<|endoftext|>"),
]


def tiny_sd_pipeline(folder: Path, *, width: int = 4, sample_size: int = 32) -> Path:
    """Build and save the pipeline under ``folder``; return the pipeline's own folder."""
    import torch
    from diffusers import AutoencoderKL, DDIMScheduler, StableDiffusionPipeline, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps({tok: i for i, tok in enumerate(_VOCAB)}))
    (folder / "merges.txt").write_text("#version: 0.2\nl o\nlo w</w>\ne r</w>\n")
    channels = (width, width * 2)
    groups = max(2, width // 2)
    torch.manual_seed(0)
    unet = UNet2DConditionModel(
        block_out_channels=channels,
        layers_per_block=1,
        sample_size=sample_size,
        in_channels=4,
        out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=8,
        norm_num_groups=groups,
    )
    scheduler = DDIMScheduler(
        beta_start=0.00085,
        beta_end=0.012,
        beta_schedule="scaled_linear",
        clip_sample=False,
        set_alpha_to_one=False,
        steps_offset=1,
    )
    torch.manual_seed(0)
    vae = AutoencoderKL(
        block_out_channels=list(channels),
        in_channels=3,
        out_channels=3,
        down_block_types=["DownEncoderBlock2D", "DownEncoderBlock2D"],
        up_block_types=["UpDecoderBlock2D", "UpDecoderBlock2D"],
        latent_channels=4,
        norm_num_groups=groups,
    )
    torch.manual_seed(0)
    text_encoder = CLIPTextModel(
        CLIPTextConfig(
            bos_token_id=0,
            eos_token_id=2,
            pad_token_id=1,
            hidden_size=8,
            intermediate_size=16,
            num_attention_heads=2,
            num_hidden_layers=2,
            layer_norm_eps=1e-5,
            vocab_size=1000,
        )
    )
    # Without model_max_length the default (~1e30) overflows inside the pipeline.
    tokenizer = CLIPTokenizer(
        str(folder / "vocab.json"), str(folder / "merges.txt"), unk_token="<unk>", model_max_length=77
    )
    pipe = StableDiffusionPipeline(
        unet=unet,
        scheduler=scheduler,
        vae=vae,
        text_encoder=text_encoder,
        tokenizer=tokenizer,
        safety_checker=None,
        feature_extractor=None,
        image_encoder=None,
        requires_safety_checker=False,
    )
    target = folder / "pipeline"
    pipe.save_pretrained(target)  # type: ignore[attr-defined]  # a mixin method diffusers does not type
    return target
