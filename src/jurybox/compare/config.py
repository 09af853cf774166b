"""What defines a bench run: :class:`JudgingSettings` (how a run judges, shared with a judge
run's :class:`~jurybox.judging.JudgeConfig`) and :class:`BenchConfig` (a bench's data and
protocols on top), as run.json stores them."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ..datasets import BUNDLED
from ..errors import ConfigError
from ..fields import check_fields
from ..protocols import Weights, protocol_class
from ..protocols.prompts import LISTWISE_PROMPT_VERSION
from ..providers import redact_url
from ..providers.spec import require_model
from ..sim import SimConfig

__all__ = ["BenchConfig", "DEFAULT_MODEL", "JudgingSettings"]


#: BenchConfig's model when none is given: "sim" for a bundled dataset, an error for the
#: user's own file (jurybox never judges a user's data with the simulated judge unasked).
DEFAULT_MODEL = "\x00unset"


@dataclass(frozen=True, kw_only=True)
class JudgingSettings:
    """How a run judges, the same for a bench (:class:`BenchConfig`) and a judge run
    (:class:`~jurybox.judging.JudgeConfig`), which differ by their data: keyword-only fields,
    stored in run.json's config (resume requires the same).

    Attributes:
        k: PCF permutations per item.
        limit: a seeded sample of this many items (per split), None for all.
        seed: the run seed: item sample, shown orders, request tags, decoding seed sent to
            the endpoint, bootstrap resampling.
        tolerance, weights: listwise winners and C_i weights.
        temperature, max_tokens: judge sampling (max_tokens None: the protocol's default).
        base_url: the judge's endpoint (None: the provider's default).
        verdict_format: pairwise: ``token`` or ``json`` (None: token).
        pairwise_rule: both-orders: ``net`` or ``strict`` (None: net); see
            :class:`~jurybox.protocols.BothOrders`. Left out of run.json's config when None,
            so runs written before it existed still resume.
        adaptive: PCF: ``off``, ``exact`` or ``sequential`` (None: off); confidence,
            min_k: the sequential rule's (None: 0.95, 3). See
            :mod:`jurybox.protocols.adaptive`. Left out of run.json's config when None.
        criteria, template: the user's judging criteria and prompt template text (None:
            the factuality prompt; :mod:`jurybox.protocols.templates`). Left out of run.json's
            config when None.
        logprobs: pairwise: ask for each answer token's log-probability with this many
            alternatives (2 to 20), and record each verdict's token probability (None: not
            asked). Left out of run.json's config when None.
        sim: the simulated judge's behaviour (``model="sim"`` only).
    """

    k: int = 7
    limit: int | None = None
    seed: int = 0
    tolerance: float = 0.5
    weights: Weights = Weights()
    temperature: float = 0.0
    max_tokens: int | None = None
    base_url: str | None = None
    verdict_format: str | None = None
    pairwise_rule: str | None = None
    adaptive: str | None = None
    confidence: float | None = None
    min_k: int | None = None
    criteria: str | None = None
    template: str | None = None
    logprobs: int | None = None
    sim: SimConfig = field(default_factory=SimConfig)

    def settings(self) -> dict[str, Any]:
        """The :class:`JudgingSettings` fields by name, to build another config that judges
        alike (a judge run's one-protocol bench)."""
        return {f.name: getattr(self, f.name) for f in fields(JudgingSettings)}


@dataclass(frozen=True)
class BenchConfig(JudgingSettings):
    """Everything that defines a bench run (stored in run.json; resume requires the same):
    its data and protocols here, how it judges in :class:`JudgingSettings` (keyword-only).

    Attributes:
        dataset: bundled name or file.
        model: ``provider/model``, ``local`` or ``sim``; default ``sim`` for a bundled
            dataset only (a user's file without a model is a ConfigError).
        protocols: names, in table order (None: the task's defaults).
        baseline: compared with every other protocol (None: the first).
        subset, n_candidates: dataset options (RewardBench 2 subset, TruthfulQA candidates).
        listwise_prompt: the listwise prompt layout (None: the current one,
            :data:`~jurybox.protocols.prompts.LISTWISE_PROMPT_VERSION`); run.json records it
            for listwise runs, and rescoring a run written before it existed uses 1.
    """

    dataset: str
    model: str = DEFAULT_MODEL
    protocols: tuple[str, ...] | None = None
    baseline: str | None = None
    subset: str | None = "Factuality"
    n_candidates: int = 4
    listwise_prompt: int | None = None

    def __post_init__(self) -> None:
        if self.model == DEFAULT_MODEL:  # not given: the simulated judge on bundled data only
            if self.dataset not in BUNDLED:
                require_model(None, str(self.dataset), how='model= (e.g. model="sim")')
            object.__setattr__(self, "model", "sim")
        check_fields(self)  # ConfigError naming a field of the wrong kind (k=2.5, model=None)

    def as_dict(self) -> dict[str, Any]:
        """As stored in run.json's ``config``."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["weights"] = vars(self.weights)
        d["base_url"] = redact_url(self.base_url)  # credentials are never recorded
        d["sim"] = self.sim.settings() if self.model == "sim" else None
        d["protocols"] = list(self.protocols) if self.protocols is not None else None
        for optional in ("pairwise_rule", "adaptive", "confidence", "min_k", "listwise_prompt",
                         "criteria", "template", "logprobs"):
            if d[optional] is None:  # runs written before these existed still resume
                del d[optional]
        return d

    def protocol_args(self, name: str) -> dict[str, Any]:
        """The arguments protocol ``name`` is built with from this config.

        Raises:
            ConfigError: an option set for the other task (``--verdict-format``,
                ``--pairwise-rule`` or ``--logprobs`` on a listwise protocol); ``--logprobs``
                with an Anthropic model (its API has none).
        """
        cls = protocol_class(name)
        args: dict[str, Any] = {"seed": self.seed, "temperature": self.temperature,
                                "max_tokens": self.max_tokens}
        if cls.task == "listwise":
            for option, value in (("--verdict-format", self.verdict_format),
                                  ("--pairwise-rule", self.pairwise_rule),
                                  ("--logprobs", self.logprobs)):
                if value is not None:
                    raise ConfigError(f"{option} is for pairwise protocols; {name!r} is "
                                      f"listwise")
            args.update(weights=self.weights, tolerance=self.tolerance,
                        prompt_version=self.listwise_prompt or LISTWISE_PROMPT_VERSION)
        if "k" in cls.ARGS:
            args["k"] = self.k
        if cls.task == "pairwise":
            if self.logprobs and self.model.partition("/")[0] == "anthropic":
                raise ConfigError("--logprobs: Anthropic's API returns no token "
                                  "log-probabilities; drop --logprobs or judge with an "
                                  "OpenAI-compatible endpoint")
            args.update(verdict_format=self.verdict_format, logprobs=self.logprobs)
        if "rule" in cls.ARGS:
            args["rule"] = self.pairwise_rule
        if "adaptive" in cls.ARGS:
            args.update(adaptive=self.adaptive, confidence=self.confidence, min_k=self.min_k)
        if "criteria" in cls.ARGS:
            args.update(criteria=self.criteria, template=self.template)
        return args
