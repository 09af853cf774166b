"""What defines a judge run: :class:`JudgeConfig` (a bench of one protocol over items whose
gold is optional), its checks before any model call (:func:`prepare_judge`) and its default run
directory."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..compare.config import BenchConfig, JudgingSettings
from ..compare.run import PreparedBench, prepare_bench
from ..datasets import load_dataset
from ..errors import ConfigError, did_you_mean
from ..fields import check_fields
from ..protocols import protocol_class, protocol_names
from ..run import check_endpoint

__all__ = ["JudgeConfig", "default_judge_out", "prepare_judge"]


@dataclass(frozen=True)
class JudgeConfig(JudgingSettings):
    """Everything that defines a judge run (stored in run.json; resume requires the same):
    its data and protocol here, how it judges in
    :class:`~jurybox.compare.run.JudgingSettings` (keyword-only, as a bench's).

    Attributes:
        input: a file (generic JSONL ``id, prompt, candidates, gold?``; JudgeBench JSONL; or
            any bench dataset file) or a bundled dataset name.
        model: the judge (``sim``, ``local``, ``openai/gpt-4o-mini``, ...): no default, so the
            user's own data is never judged by the simulated judge unless asked.
        protocol: ``pcf`` (default), ``direct``, ``pairwise``, ``both-orders``, ``keyed`` or
            ``apoc``; pairwise protocols take generic lines with exactly 2 candidates.
    """

    input: str
    model: str
    protocol: str = "pcf"

    def __post_init__(self) -> None:
        check_fields(self)  # ConfigError naming a field of the wrong kind (k=2.5, criteria=5)

    def bench_config(self) -> BenchConfig:
        """The one-protocol bench this judge run is."""
        return BenchConfig(dataset=self.input, model=self.model, protocols=(self.protocol,),
                           **self.settings())

    def as_dict(self) -> dict[str, Any]:
        """As stored in run.json's ``config``."""
        d = self.bench_config().as_dict()
        del d["dataset"], d["protocols"], d["baseline"], d["subset"], d["n_candidates"]
        return {"input": self.input, "protocol": self.protocol, **d}


def prepare_judge(config: JudgeConfig) -> PreparedBench:
    """Check everything before any model call: the protocol name, the input file (gold
    optional; generic lines read as pairs for a pairwise protocol), the options.

    Raises:
        ConfigError, DataError: on the first problem.
    """
    choices = protocol_names("listwise") + protocol_names("pairwise")
    if config.protocol not in choices:
        raise ConfigError(f"unknown protocol {config.protocol!r}"
                          f"{did_you_mean(config.protocol, choices) or ';'} jurybox judge takes "
                          f"{', '.join(choices)}")
    check_endpoint(config.model, config.base_url)  # before reading a large input
    dataset = load_dataset(config.input, labelled=False)
    task = protocol_class(config.protocol).task
    if task == "pairwise" and dataset.format == "jsonl":
        dataset = load_dataset(config.input, format="pairs", labelled=False)
    if task != dataset.task:
        raise ConfigError(f"protocol {config.protocol!r} judges {task} items, but "
                          f"{config.input!r} holds {dataset.task} items; {dataset.task} "
                          f"protocols: {protocol_names(dataset.task)}")
    return prepare_bench(config.bench_config(), dataset=dataset)


def default_judge_out(config: JudgeConfig, items_sha256: str = "") -> Path:
    """``runs/judge-<input>-<model>-<hash of config>``: the same call reuses (and resumes)
    the same folder, a changed one gets a new folder."""
    digest = hashlib.sha256(json.dumps([config.as_dict(), items_sha256], sort_keys=True,
                                       default=str).encode()).hexdigest()
    return Path("runs") / (f"judge-{Path(config.input).stem}-"
                           f"{config.model.replace('/', '_')}-{digest[:8]}")
