"""The simulated judge: an OpenAI-compatible, position-biased, noisy server on 127.0.0.1."""

from .config import BIAS_PRESETS, Faults, SimConfig, bias_vector
from .judge import SimAnswer, SimJudge, SimStats
from .rubric import RubricKnowledge, rubric_answer
from .server import (SIM_MODEL, STATS_PATH, UNKNOWN_HEADER, SimServer, make_app,
                     serve_forever)

__all__ = ["BIAS_PRESETS", "SIM_MODEL", "STATS_PATH", "UNKNOWN_HEADER", "Faults",
           "RubricKnowledge", "SimAnswer", "SimConfig", "SimJudge", "SimServer", "SimStats",
           "bias_vector", "make_app", "rubric_answer", "serve_forever"]
