"""Emulated image APIs: OpenAI Images, xAI Grok Imagine, fal queue (facts: reference/image-apis.md)."""

from __future__ import annotations

from hermes_nb.testing._wire import Api

APIS: list[Api] = []
