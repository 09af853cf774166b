"""``jurybox cache``: inspect or clear the response cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional



from ._declared import argument, declared
from ..terminal import safe_text
from ._common import console, default_cache, fail_cleanly


@fail_cleanly
def cache(
    action: Annotated[str, argument("cache action")] = "info",
    path: Annotated[Optional[Path], declared("cache --path")] = None,
) -> None:
    """Show where the response cache is and how many responses it holds, or clear it."""
    from ..cache import ResponseCache

    path = path or default_cache()
    if action not in ("info", "clear"):
        raise ValueError(f"action must be 'info' or 'clear', got {action!r}")
    if not path.exists():
        console.print(safe_text(f"no cache at {path} (nothing was created)"), markup=False)
        return
    ResponseCache(path, read_only=True).close()  # a jurybox cache? (nothing changed if not)
    store = ResponseCache(path, read_only=action == "info")
    try:
        if action == "clear":
            console.print(safe_text(f"deleted {store.clear()} responses from {path}"),
                          markup=False)
        else:
            console.print(safe_text(f"{path}: {len(store)} responses"), markup=False)
    finally:
        store.close()
