"""jurybox: robust, reproducible LLM-as-a-judge evaluation.

The root exports the verbs (from :mod:`jurybox.api`, the public layer above every package) and
the core types; each layer is a subpackage with its own ``__all__`` (datasets, providers, sim,
runner, cache, parsing, protocols, stats, rundir, reports, run, compare, judging, agreement,
rubrics, personalize, cli; the layering: docs/architecture.md). Names are imported on first
use, so ``import jurybox`` costs almost nothing.
"""

import importlib as _importlib
import typing as _typing

from ._version import __version__

#: Root name -> the subpackage it comes from.
_EXPORTS = {
    "BenchConfig": "compare", "BenchResult": "compare", "run_bench": "compare",
    "arun_bench": "compare",
    "ResponseCache": "cache",
    "ListwiseItem": "datasets", "load_listwise": "datasets", "load_ratings": "datasets",
    "ConfigError": "errors", "DataError": "errors", "JuryboxError": "errors",
    "ParseError": "errors", "ProviderError": "errors",
    "DirectProtocol": "protocols", "PCFProtocol": "protocols", "Weights": "protocols",
    "build_protocol": "protocols",
    "ChatRequest": "providers", "ChatResponse": "providers", "make_provider": "providers",
    "parse_spec": "providers",
    "Engine": "run", "RunHooks": "run", "RunOptions": "run", "open_endpoint": "run",
    "Job": "runner", "RetryPolicy": "runner", "Runner": "runner",
    "SimConfig": "sim", "SimJudge": "sim", "SimServer": "sim",
    "ConfidenceInterval": "stats", "accuracy": "stats", "order_diagnostics": "stats",
    "paired_comparison": "stats",
    "run_agreement": "agreement",
    "load_rubric": "rubrics",
    "PersonalizeConfig": "personalize", "run_personalize": "personalize",
    "arun_personalize": "personalize",
    "ItemJudgment": "judging", "JudgeConfig": "judging", "Judgments": "judging",
    "run_judge": "judging", "arun_judge": "judging",
    "judge": "api", "ajudge": "api", "bench": "api", "abench": "api", "personalize": "api",
    "apersonalize": "api", "agreement": "api", "score": "api", "rank": "api",
    "selective": "api", "cascade": "api",
}

__all__ = [
    "BenchConfig",
    "BenchResult",
    "ChatRequest",
    "ChatResponse",
    "ConfidenceInterval",
    "ConfigError",
    "DataError",
    "DirectProtocol",
    "Engine",
    "ItemJudgment",
    "Job",
    "JudgeConfig",
    "Judgments",
    "JuryboxError",
    "ListwiseItem",
    "PCFProtocol",
    "ParseError",
    "PersonalizeConfig",
    "ProviderError",
    "ResponseCache",
    "RetryPolicy",
    "RunHooks",
    "RunOptions",
    "Runner",
    "SimConfig",
    "SimJudge",
    "SimServer",
    "Weights",
    "__version__",
    "abench",
    "accuracy",
    "agreement",
    "ajudge",
    "apersonalize",
    "arun_bench",
    "arun_judge",
    "arun_personalize",
    "bench",
    "build_protocol",
    "cascade",
    "judge",
    "load_listwise",
    "load_ratings",
    "load_rubric",
    "make_provider",
    "open_endpoint",
    "order_diagnostics",
    "paired_comparison",
    "parse_spec",
    "personalize",
    "run_agreement",
    "run_bench",
    "run_judge",
    "run_personalize",
    "rank",
    "score",
    "selective",
]


def __getattr__(name: str) -> _typing.Any:
    if name in _EXPORTS:
        value = getattr(_importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jurybox' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if _typing.TYPE_CHECKING:
    from .agreement import run_agreement
    from .cache import ResponseCache
    from .compare import BenchConfig, BenchResult, arun_bench, run_bench
    from .datasets import ListwiseItem, load_listwise, load_ratings
    from .api import (abench, agreement, ajudge, apersonalize, bench, judge, personalize,
                      score)
    from .judging import ItemJudgment, JudgeConfig, Judgments, arun_judge, run_judge
    from .errors import ConfigError, DataError, JuryboxError, ParseError, ProviderError
    from .personalize import PersonalizeConfig, arun_personalize, run_personalize
    from .protocols import DirectProtocol, PCFProtocol, Weights, build_protocol
    from .providers import ChatRequest, ChatResponse, make_provider, parse_spec
    from .rubrics import load_rubric
    from .run import Engine, RunHooks, RunOptions, open_endpoint
    from .runner import Job, RetryPolicy, Runner
    from .sim import SimConfig, SimJudge, SimServer
    from .stats import ConfidenceInterval, accuracy, order_diagnostics, paired_comparison
