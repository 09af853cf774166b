"""The simulated judge: an OpenAI-compatible, position-biased, noisy server on 127.0.0.1."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["BATCH_STATS_PATH", "BIAS_PRESETS", "BatchScript", "SIM_MODEL", "STATS_PATH",
           "UNKNOWN_HEADER", "Faults", "RubricKnowledge", "SimAnswer", "SimConfig", "SimJudge",
           "SimServer", "SimStats", "bias_vector", "make_app", "rubric_answer", "serve_forever"]

__getattr__, __dir__ = _lazy_exports(__name__, {
    "BATCH_STATS_PATH": ".batch_state",
    "BatchScript": ".batch_state",
    "BIAS_PRESETS": ".config",
    "Faults": ".config",
    "SimConfig": ".config",
    "bias_vector": ".config",
    "SimAnswer": ".judge",
    "SimJudge": ".judge",
    "SimStats": ".judge",
    "RubricKnowledge": ".rubric",
    "rubric_answer": ".rubric",
    "SIM_MODEL": ".server",
    "STATS_PATH": ".server",
    "UNKNOWN_HEADER": ".server",
    "SimServer": ".server",
    "make_app": ".server",
    "serve_forever": ".server",
})

if _typing.TYPE_CHECKING:
    from .batch_state import BATCH_STATS_PATH, BatchScript
    from .config import BIAS_PRESETS, Faults, SimConfig, bias_vector
    from .judge import SimAnswer, SimJudge, SimStats
    from .rubric import RubricKnowledge, rubric_answer
    from .server import SIM_MODEL, STATS_PATH, UNKNOWN_HEADER, SimServer, make_app, serve_forever
