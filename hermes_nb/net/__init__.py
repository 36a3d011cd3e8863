"""Networking: the shared provider HTTP client (retries, limits, transports) and the guarded fetch (SSRF)."""
