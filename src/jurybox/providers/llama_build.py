"""Which llama.cpp build ``llama-cpp-python`` installed, and how to rebuild it portably.

``pip install llama-cpp-python`` compiles llama.cpp from source with ``GGML_NATIVE=ON``:
``-march=native``, every instruction the *build* machine's CPU advertises. A wheel built on
a CPU that lists AMX or AVX-512 then holds those instructions, and on a machine that cannot
run them (a CPU without them, or a virtual machine that advertises AMX in ``/proc/cpuinfo``
but does not enable it) the server loads the model, lists it, and dies with SIGILL on its
first completion (the AMX ``tileloadd`` in ``libggml-cpu.so``). pip caches the built wheel, so
every later install on the same machine reuses the native build silently.

A **portable** build turns ``GGML_NATIVE`` off and names its instruction sets: on x86-64,
AVX, AVX2, FMA and F16C (every x86-64 CPU since 2013-2015: Haswell, Excavator), which is
:data:`PORTABLE_CMAKE_ARGS`; elsewhere (aarch64) the architecture's baseline. The SmolLM2 judge
runs at the same speed either way on this project's 2-core machines (it is memory-bound).

llama.cpp reports the instruction sets a build was *compiled* with (``llama_print_system_info``:
``CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | ...``, each flag from a ``#if defined(__AVX2__)``-style
test in ``ggml-cpu.c``), which is how :func:`installed_build` tells a native build from a
portable one without running a model.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["BEYOND_AVX2", "LlamaBuild", "PORTABLE_CMAKE_ARGS", "installed_build",
           "parse_system_info", "portable_cmake_args", "rebuild_command"]

#: CMake flags of a llama.cpp build that runs on any x86-64 CPU with AVX2.
PORTABLE_CMAKE_ARGS = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON "
                       "-DGGML_F16C=ON")
#: Instruction sets (as llama.cpp's system info names them) that a CPU with AVX2 may lack: a
#: build compiled with any of them is tied to CPUs like the one it was built on.
BEYOND_AVX2 = frozenset({"AVX_VNNI", "AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16",
                         "AMX_INT8", "AMX_TILE", "AMX_BF16"})
_X86 = frozenset({"x86_64", "amd64", "i386", "i686"})


def portable_cmake_args(machine: str | None = None) -> str:
    """The ``CMAKE_ARGS`` of a portable build for ``machine`` (``platform.machine()``):
    :data:`PORTABLE_CMAKE_ARGS` on x86-64, ``-DGGML_NATIVE=OFF`` (the architecture's
    baseline) elsewhere.

    >>> portable_cmake_args("x86_64") == PORTABLE_CMAKE_ARGS
    True
    >>> portable_cmake_args("aarch64")
    '-DGGML_NATIVE=OFF'
    """
    machine = (machine or platform.machine()).lower()
    return PORTABLE_CMAKE_ARGS if machine in _X86 else "-DGGML_NATIVE=OFF"


def rebuild_command(version: str | None = None) -> str:
    """The one pip command that replaces an installed llama-cpp-python with a portable build
    of the same version (``--no-cache-dir``: pip's wheel cache may hold the native build).

    >>> rebuild_command("0.3.36").split(" pip ")[1]
    "install --force-reinstall --no-cache-dir --no-deps 'llama-cpp-python==0.3.36'"
    """
    pin = f"=={version}" if version else ""
    return (f'CMAKE_ARGS="{portable_cmake_args()}" pip install --force-reinstall --no-cache-dir '
            f"--no-deps 'llama-cpp-python{pin}'")


def parse_system_info(text: str) -> dict[str, str]:
    """The ``NAME = value`` pairs of llama.cpp's system info line (every backend's).

    >>> parse_system_info("CPU : SSE3 = 1 | AVX2 = 1 | AMX_INT8 = 1 | REPACK = 1 | ")
    {'SSE3': '1', 'AVX2': '1', 'AMX_INT8': '1', 'REPACK': '1'}
    """
    pairs: dict[str, str] = {}
    for part in text.split("|"):
        name, sep, value = part.rpartition(":")[2].partition("=")
        if sep and name.strip():
            pairs[name.strip()] = value.strip()
    return pairs


@dataclass(frozen=True)
class LlamaBuild:
    """The installed llama-cpp-python and the instruction sets its llama.cpp was compiled
    with.

    Attributes:
        version: llama-cpp-python's version (``0.3.36``).
        system_info: llama.cpp's system info line, as it printed it.
    """

    version: str
    system_info: str

    @property
    def features(self) -> frozenset[str]:
        """Names the system info marks ``1`` (``AVX2``, ``AMX_INT8``, ...)."""
        return frozenset(k for k, v in parse_system_info(self.system_info).items() if v == "1")

    @property
    def native_features(self) -> list[str]:
        """The instruction sets beyond AVX2 it was compiled with (sorted; [] when portable)."""
        return sorted(self.features & BEYOND_AVX2)

    @property
    def portable(self) -> bool:
        """Runs on any CPU of its architecture with AVX2 (x86-64) or the baseline."""
        return not self.native_features

    def describe(self) -> str:
        """``llama-cpp-python 0.3.36, portable (AVX2)`` or ``..., native: AMX_INT8, AVX512``."""
        kind = "portable (AVX2)" if self.portable else \
            f"native: compiled with {', '.join(self.native_features)}"
        return f"llama-cpp-python {self.version}, {kind}"


_PROBE = ("import json, llama_cpp; info = llama_cpp.llama_print_system_info(); "
          "print(json.dumps({'version': llama_cpp.__version__, 'system_info': "
          "info.decode('utf-8', 'replace') if isinstance(info, bytes) else str(info)}))")


def installed_build(python: str | None = None, *, timeout_s: float = 120.0
                    ) -> LlamaBuild | None:
    """Ask ``python`` (default: this interpreter) which llama.cpp build it has, in a child
    process (importing ``llama_cpp`` loads the library, which must never take this process
    down). None when llama-cpp-python is not installed or cannot be imported there.

    Raises:
        subprocess.TimeoutExpired: the child took longer than ``timeout_s`` seconds.
    """
    proc = subprocess.run([python or sys.executable, "-c", _PROBE], capture_output=True,
                          text=True, timeout=timeout_s, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        return None
    try:
        found = json.loads(proc.stdout.strip().splitlines()[-1])
        return LlamaBuild(str(found["version"]), str(found["system_info"]))
    except (IndexError, KeyError, TypeError, ValueError):
        return None
