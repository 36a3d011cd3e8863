"""``agent.file_safety``: refuse to read files that hold secrets (``.env`` files, key stores, ``~/.ssh``).

Hermes's image plugins call this before reading a local file the model named as an edit source,
so a prompt cannot make them upload a credential file to a vendor.
"""

from __future__ import annotations

import os
from pathlib import Path

from hermes_nb.config import get_hermes_home

HERMES_NAME = "agent.file_safety"
__all__ = ["get_read_block_error", "raise_if_read_blocked", "is_read_blocked"]

#: folders under the home directory that hold credentials
_HOME_DIRS = (".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".password-store")
#: file names that hold credentials wherever they are
_NAMES = frozenset(
    {".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials", "auth.json", "credentials",
     "credentials.json", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "known_hosts", "authorized_keys"}
)
_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".gpg", ".asc")


def _resolved(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.expanduser(os.fspath(path))).resolve()


def _under(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def get_read_block_error(path: str | os.PathLike[str]) -> str | None:
    """Why reading ``path`` is refused, or ``None`` when it may be read."""
    try:
        target = _resolved(path)
    except (OSError, RuntimeError, TypeError, ValueError):
        return f"Refusing to read {path!r}: the path cannot be resolved"
    name = target.name.lower()
    reason = ""
    if name == ".env" or name.startswith(".env.") or name.endswith(".env"):
        reason = "it is an environment file that holds secrets"
    elif name in _NAMES or name.endswith(_SUFFIXES):
        reason = "it looks like a credential or key store"
    else:
        home = Path.home()
        hermes_home = get_hermes_home()
        if any(_under(target, home / folder) for folder in _HOME_DIRS):
            reason = "it is inside a folder that holds credentials"
        elif _under(target, hermes_home) and not _under(target, hermes_home / "cache"):
            reason = "it is inside $HERMES_HOME (keys and config), outside its cache"
    return f"Refusing to read {target}: {reason}" if reason else None


def is_read_blocked(path: str | os.PathLike[str]) -> bool:
    return get_read_block_error(path) is not None


def raise_if_read_blocked(path: str | os.PathLike[str]) -> None:
    """``PermissionError`` naming the reason when ``path`` holds secrets."""
    error = get_read_block_error(path)
    if error:
        raise PermissionError(error)
