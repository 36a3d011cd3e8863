"""Child process for the ddgs provider: one search, JSON in on stdin, JSON out on stdout.

It runs as a script (``python _worker.py``) so a hung search can be killed without touching the
kernel, and so that it imports nothing from hermes_nb. Failures are reported by exception type.
"""

import json
import sys


def main() -> None:
    request = json.loads(sys.stdin.read())
    try:
        from ddgs import DDGS
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException
    except ImportError as exc:
        return _reply({"ok": False, "kind": "missing", "message": str(exc)})
    try:
        rows = DDGS(timeout=request["timeout"]).text(request["query"], max_results=request["max_results"])
    except RatelimitException as exc:
        return _reply({"ok": False, "kind": "ratelimit", "message": str(exc)})
    except TimeoutException as exc:
        return _reply({"ok": False, "kind": "timeout", "message": str(exc)})
    except DDGSException as exc:
        # ddgs 9 raises the base class both for "no results" (a message) and when every engine
        # failed (then its argument is the last engine's exception object): tell them apart by type.
        cause = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None
        if isinstance(cause, RatelimitException):
            return _reply({"ok": False, "kind": "ratelimit", "message": str(cause)})
        if cause is not None:
            detail = f"{type(cause).__name__}: {cause}"
            return _reply({"ok": False, "kind": "engines_failed", "message": detail})
        return _reply({"ok": False, "kind": "empty", "message": str(exc)})
    except Exception as exc:  # the parent turns anything else into PROVIDER_UNAVAILABLE
        return _reply({"ok": False, "kind": "error", "message": f"{type(exc).__name__}: {exc}"})
    _reply({"ok": True, "results": [r for r in rows or [] if isinstance(r, dict)]})


def _reply(message: dict) -> None:
    sys.stdout.write(json.dumps(message, default=str))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
