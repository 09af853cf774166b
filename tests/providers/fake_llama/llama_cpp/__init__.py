"""A stand-in for llama-cpp-python, for tests of the local judge's start-up and crash handling
(``tests/providers/test_local_crash.py`` puts this folder first on the child's PYTHONPATH).

``llama_print_system_info`` reports the build named by ``FAKE_LLAMA_SYSTEM_INFO`` (default: a
native build on a machine with AMX), as llama.cpp's own function reports its compile flags.
"""

import os

__version__ = "0.3.36"


def llama_print_system_info() -> bytes:
    return os.environ.get(
        "FAKE_LLAMA_SYSTEM_INFO",
        "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | AVX512 = 1 | "
        "AVX512_VNNI = 1 | AMX_INT8 = 1 | ").encode()
