"""jurybox: robust, reproducible LLM-as-a-judge evaluation.

The root exports the verbs and core types; each layer is a subpackage with its own
``__all__`` (datasets, providers, sim, runner, cache, parsing, protocols, stats, reports,
bench, cli).
"""

__version__ = "0.1.0"

from .bench import BenchConfig, BenchResult, run_bench  # noqa: E402
from .cache import ResponseCache  # noqa: E402
from .datasets import ListwiseItem, load_listwise  # noqa: E402
from .errors import ConfigError, DataError, JuryboxError, ParseError, ProviderError  # noqa: E402
from .protocols import DirectProtocol, PCFProtocol, Weights, build_protocol  # noqa: E402
from .providers import ChatRequest, ChatResponse, make_provider, parse_spec  # noqa: E402
from .runner import Job, RetryPolicy, Runner  # noqa: E402
from .sim import SimConfig, SimJudge, SimServer  # noqa: E402
from .stats import accuracy, order_diagnostics, paired_comparison  # noqa: E402

__all__ = [
    "BenchConfig",
    "BenchResult",
    "ChatRequest",
    "ChatResponse",
    "ConfigError",
    "DataError",
    "DirectProtocol",
    "Job",
    "JuryboxError",
    "ListwiseItem",
    "PCFProtocol",
    "ParseError",
    "ProviderError",
    "ResponseCache",
    "RetryPolicy",
    "Runner",
    "SimConfig",
    "SimJudge",
    "SimServer",
    "Weights",
    "__version__",
    "accuracy",
    "build_protocol",
    "load_listwise",
    "make_provider",
    "order_diagnostics",
    "paired_comparison",
    "parse_spec",
    "run_bench",
]
