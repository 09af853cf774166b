"""The simulated judge: an OpenAI-compatible, position-biased, noisy server on 127.0.0.1."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["BATCH_STATS_PATH", "BIAS_PRESETS", "BatchScript", "SIM_MODEL", "STATS_PATH",
           "UNKNOWN_HEADER", "Faults", "RubricKnowledge", "SimAnswer", "SimConfig", "SimJudge",
           "SimServer", "SimStats", "bias_vector", "make_app", "rubric_answer", "serve_forever"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .batch_state import BATCH_STATS_PATH, BatchScript
    from .config import BIAS_PRESETS, Faults, SimConfig, bias_vector
    from .judge import SimAnswer, SimJudge, SimStats
    from .rubric import RubricKnowledge, rubric_answer
    from .server import SIM_MODEL, STATS_PATH, UNKNOWN_HEADER, SimServer, make_app, serve_forever
