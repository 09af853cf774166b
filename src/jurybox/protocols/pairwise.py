"""Pairwise protocols (APOCJudge, arXiv 2603.20562, JudgeBench experiments).

- ``pairwise``: one call in an order seeded by (seed, item id).
- ``both-orders``: that call plus the reversed order, mapped back to the original responses;
  *consistent* when both agree. Two rules combine them (``rule``): ``net`` (default), their net
  vote (+1 A, -1 B, 0 tie: A/B is a tie, A/tie is A); ``strict``, MT-Bench's two-game rule (a
  win only when both orders prefer the same response; anything else, A/tie included, is a tie;
  :func:`strict_verdict`). Under either rule, if either call failed, the item failed.
- ``keyed``: one call that first solves the question, then compares both responses with its
  own solution.
- ``apoc``: the direct verdict, overridden only when both orders agree on the other response
  and the keyed judge agrees with them (:func:`apoc_verdict`). If the direct call failed, the
  item failed; if a check call failed, there is no agreement and the direct verdict stands.

Decision (ours; the paper leaves it open): APOC's two order-check calls are an independent
sample (decoding seed + 1, sample index 1), not the direct call again. If they reused the
direct call, "both orders agree on the other response" could never hold, and the override
could never fire. With a deterministic judge (temperature 0, seed honoured), the override
fires only when the judge's verdict moves with the decoding seed; a temperature above 0 gives
APOC more room.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any, ClassVar, Literal, get_args

from ..datasets import PairwiseItem, Verdict
from ..parsing import ShownVerdict, parse_verdict
from ..parsing.verdict_probability import verdict_probability
from ..providers import MAX_TOP_LOGPROBS
from ..runner import Outcome
from .base import PlannedCall, PlannedProtocol, register
from .templates import JudgePrompt
from .pairwise_prompts import TOKEN_REASK, VerdictFormat, pairwise_request
from .permutations import base_order
from .prompts import request_tag
from .schemas import verdict_schema

__all__ = ["PairwiseDecision", "PairwiseDirect", "BothOrders", "KeyedJudge", "APOCJudge",
           "PairwiseRule", "apoc_verdict", "orders_disagree", "to_original", "net_verdict",
           "strict_verdict"]

#: How both-orders combines its two verdicts: net vote, or MT-Bench's strict two-game rule.
PairwiseRule = Literal["net", "strict"]


def to_original(shown: ShownVerdict, order: Sequence[int]) -> Verdict:
    """A verdict on the shown pair in terms of the original responses (order[0] shown first)."""
    if shown == "tie":
        return "tie"
    first_better = shown == "A"
    return "A" if (order[0] == 0) == first_better else "B"


def net_verdict(verdicts: Sequence[Verdict | None]) -> Verdict | None:
    """Net vote of several verdicts (+1 A, -1 B, 0 tie); None when all are missing."""
    present = [v for v in verdicts if v is not None]
    if not present:
        return None
    net = sum(1 if v == "A" else -1 if v == "B" else 0 for v in present)
    return "A" if net > 0 else "B" if net < 0 else "tie"


def strict_verdict(first: Verdict | None, second: Verdict | None) -> Verdict | None:
    """MT-Bench's two-game rule: a response wins only when both orders prefer it; any other
    pair of verdicts (A/B, A/tie, tie/tie) is a tie. None when either verdict is missing.

    Source: Zheng et al. (2023), "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena",
    sec. 3 (swap positions; declare a win only if an answer is preferred in both orders), as
    FastChat's llm_judge ``show_result.py`` scores pairwise games (tie when game 1 is a tie
    or the two games' winners differ). FastChat turns a judgment it cannot parse into an
    "error" winner, which then counts as inconsistent (a tie); here a failed call has no
    verdict and the item fails, as under the net rule: a failure is never turned into a
    verdict.

    >>> strict_verdict("A", "A"), strict_verdict("A", "tie"), strict_verdict("B", "A")
    ('A', 'tie', 'tie')
    """
    if first is None or second is None:
        return None
    return first if first == second else "tie"


def orders_disagree(call_ids: Sequence[str], shown_first: Sequence[int],
                    verdicts: Sequence[Verdict | None]) -> bool:
    """True when some call and the call showing the same pair in the reverse order (same
    sample, both keyed or both not) gave different verdicts, in original terms: the order
    changed the judge's answer. Calls without a verdict are left out.

    Args:
        call_ids: per call, its id (``AB``, ``BA-s1``, ``keyed-AB``; see the pairwise
            protocols' plans).
        shown_first: per call, the original response shown first (0 = A).
        verdicts: per call, its verdict in original terms, or None (failed).
    """
    by_pair: dict[tuple[bool, str], dict[int, Verdict]] = {}
    for call_id, first, verdict in zip(call_ids, shown_first, verdicts):
        if verdict is None:
            continue
        sample = call_id.rpartition("-s")[2] if "-s" in call_id else "0"
        by_pair.setdefault((call_id.startswith("keyed"), sample), {})[first] = verdict
    return any(len(v) == 2 and len(set(v.values())) > 1 for v in by_pair.values())


def apoc_verdict(direct: Verdict | None, both_orders: tuple[Verdict | None, Verdict | None],
                 keyed: Verdict | None) -> Verdict | None:
    """APOC: keep ``direct`` unless both orders agree on a response other than ``direct`` and
    the keyed judge agrees with them; then take theirs. A tie is never an override target.
    When the direct call failed, APOC has no verdict to keep or override: None (a failure is
    never turned into a verdict)."""
    if direct is None:
        return None
    agreed = both_orders[0] if both_orders[0] == both_orders[1] else None
    if agreed in ("A", "B") and agreed != direct and keyed == agreed:
        return agreed
    return direct


@dataclass(frozen=True)
class PairwiseDecision:
    """A pairwise protocol's verdict on one item (one line of items.jsonl).

    Attributes:
        verdict: ``"A"``, ``"B"``, ``"tie"`` (original responses), or None when it failed.
        credit: 1 if the verdict is the labelled better response, 0.5 for a tie (the tie
            credit of listwise judging), 0 otherwise; None when failed or unlabelled.
        call_ids / call_verdicts / shown_first / shown_verdicts: per planned call, its id, its
            verdict in original terms, which original response was shown first (0 = A), and
            its verdict in shown terms (``"A"`` = the first shown).
        consistent: both orders gave the same verdict (both-orders only; None otherwise or
            when a call failed).
        lengths: the two responses' lengths in characters (A, B; the length bias's input).
        call_probabilities: per planned call, the token probability that response A (the
            original first) is better (:func:`~jurybox.parsing.verdict_probability.
            verdict_probability`, in original terms), or None; empty unless the protocol
            asked for log-probabilities (``logprobs``), and then left out of items.jsonl.
    """

    item_id: str
    protocol: str
    n_calls: int
    n_ok: int
    verdict: Verdict | None
    credit: float | None
    label: str
    bucket: str
    split: str
    call_ids: tuple[str, ...]
    call_verdicts: tuple[Verdict | None, ...]
    shown_first: tuple[int, ...]
    shown_verdicts: tuple[ShownVerdict | None, ...]
    consistent: bool | None = None
    failures: tuple[str, ...] = field(default_factory=tuple)
    lengths: tuple[int, ...] = ()
    call_probabilities: tuple[float | None, ...] = ()

    @property
    def failed(self) -> bool:
        """No verdict (a call it needed failed)."""
        return self.verdict is None

    def to_record(self) -> dict[str, Any]:
        """The items.jsonl line (written once, by the run engine; fields are flat, so a
        shallow copy serializes). ``call_probabilities`` only when there are some."""
        record = {f.name: getattr(self, f.name) for f in fields(self)}
        if not self.call_probabilities:
            del record["call_probabilities"]
        return {**record, "failed": self.failed}


class _PairwiseProtocol(PlannedProtocol):
    """Shared planning and bookkeeping; subclasses say which calls and how to decide."""

    ARGS: ClassVar[tuple[str, ...]] = ("seed", "temperature", "max_tokens", "verdict_format",
                                       "criteria", "template", "logprobs")
    task = "pairwise"
    name = ""

    def __init__(self, seed: int = 0, temperature: float = 0.0, max_tokens: int = 2048,
                 verdict_format: VerdictFormat = "token", criteria: str | None = None,
                 template: str | None = None, logprobs: int = 0) -> None:
        if verdict_format not in ("token", "json"):
            raise ValueError(f"verdict_format must be 'token' or 'json', got {verdict_format!r}")
        if isinstance(logprobs, bool) or not isinstance(logprobs, int) or not (
                logprobs == 0 or 2 <= logprobs <= MAX_TOP_LOGPROBS):
            raise ValueError(f"logprobs must be 0 (not asked) or a whole number from 2 (the "
                             f"verdict's A and B) to {MAX_TOP_LOGPROBS}, got {logprobs!r}")
        self.seed, self.temperature, self.max_tokens = seed, temperature, max_tokens
        self.verdict_format, self.logprobs = verdict_format, logprobs
        self.custom = JudgePrompt(criteria, template)

    def params(self) -> dict[str, Any]:
        """The settings (``logprobs`` only when asked for, so earlier runs keep theirs)."""
        params = {"seed": self.seed, "temperature": self.temperature,
                  "max_tokens": self.max_tokens, "verdict_format": self.verdict_format}
        if self.logprobs:
            params["logprobs"] = self.logprobs
        return {**params, **self.custom.params()}

    def _order(self, item: PairwiseItem, reverse: bool = False) -> tuple[int, int]:
        order = base_order(2, seed=self.seed, item_id=item.item_id)
        return (order[1], order[0]) if reverse else (order[0], order[1])

    def _call(self, item: PairwiseItem, order: tuple[int, int], *, keyed: bool = False,
              sample: int = 0) -> PlannedCall:
        shown = [item.responses[i] for i in order]
        request = pairwise_request(
            item.question, *shown, tag=request_tag(self.seed, item.item_id, order, keyed, sample),
            keyed=keyed, verdict_format=self.verdict_format, temperature=self.temperature,
            max_tokens=self.max_tokens, seed=self.seed + sample, sample_index=sample,
            custom=self.custom, top_logprobs=self.logprobs)
        call_id = ("keyed-" if keyed else "") + "".join("AB"[i] for i in order) + (
            f"-s{sample}" if sample else "")
        # a JSON verdict has a schema; Arena-Hard verdict tokens are free text
        schema = verdict_schema(keyed) if self.verdict_format == "json" else None
        return PlannedCall(call_id, order, ("A", "B"), request, partial(parse_verdict),
                           schema=schema, reask=None if schema else TOKEN_REASK)

    def decide(self, item: PairwiseItem, calls: list[PlannedCall],
               outcomes: list[Outcome[Any]]) -> PairwiseDecision:
        shown = tuple(o.value.verdict if o.value is not None else None for o in outcomes)
        original = tuple(to_original(s, c.order) if s else None for s, c in zip(shown, calls))
        verdict, consistent = self._verdict(original)
        credit = None if verdict is None or not item.labelled else (
            0.5 if verdict == "tie" else float(verdict == item.better))
        return PairwiseDecision(
            item_id=item.item_id, protocol=self.name, n_calls=len(calls),
            n_ok=sum(o.ok for o in outcomes), verdict=verdict, credit=credit, label=item.label,
            bucket=item.bucket, split=item.split, call_ids=tuple(c.call_id for c in calls),
            call_verdicts=original, shown_first=tuple(c.order[0] for c in calls),
            shown_verdicts=shown, consistent=consistent,
            failures=tuple(o.failure.kind for o in outcomes if o.failure is not None),
            lengths=item.lengths, call_probabilities=self._probabilities(calls, outcomes))

    def _probabilities(self, calls: list[PlannedCall],
                       outcomes: list[Outcome[Any]]) -> tuple[float | None, ...]:
        """Per call, the token probability that original response A is better (None where
        there is none); empty when log-probabilities were not asked for."""
        if not self.logprobs:
            return ()
        out: list[float | None] = []
        for call, o in zip(calls, outcomes):
            p = None if o.value is None else verdict_probability(
                o.text, o.value.token, o.value.verdict, o.logprobs)
            out.append(p if p is None or call.order[0] == 0 else 1.0 - p)
        return tuple(out)

    def _verdict(self, original: tuple[Verdict | None, ...]) -> tuple[Verdict | None, bool | None]:
        raise NotImplementedError


@register("pairwise")
class PairwiseDirect(_PairwiseProtocol):
    """One call in a seeded order."""

    name = "pairwise"

    def plan(self, item: PairwiseItem) -> list[PlannedCall]:
        return [self._call(item, self._order(item))]

    def _verdict(self, original):
        return original[0], None


@register("both-orders")
class BothOrders(_PairwiseProtocol):
    """The seeded order and its reverse, consistent when they agree.

    Args:
        rule: how the two verdicts combine. ``"net"`` (default): their net vote, so one
            order's win against the other's tie is a win (:func:`net_verdict`).
            ``"strict"``: MT-Bench's two-game rule, a win only when both orders prefer the
            same response, else a tie (:func:`strict_verdict`). Either way, a failed call
            fails the item (no decision).
        seed: as for every pairwise protocol.
        temperature: as for every pairwise protocol.
        max_tokens: as for every pairwise protocol.
        verdict_format: as for every pairwise protocol.

    Raises:
        ValueError: an unknown ``rule`` or ``verdict_format``.
    """

    ARGS = (*_PairwiseProtocol.ARGS, "rule")
    name = "both-orders"

    def __init__(self, seed: int = 0, temperature: float = 0.0, max_tokens: int = 2048,
                 verdict_format: VerdictFormat = "token", rule: PairwiseRule = "net",
                 criteria: str | None = None, template: str | None = None,
                 logprobs: int = 0) -> None:
        if rule not in get_args(PairwiseRule):
            raise ValueError(f"rule must be one of {', '.join(get_args(PairwiseRule))}, "
                             f"got {rule!r}")
        super().__init__(seed, temperature, max_tokens, verdict_format, criteria, template,
                         logprobs)
        self.rule = rule

    def params(self) -> dict[str, Any]:
        return {**super().params(), "rule": self.rule}

    def plan(self, item: PairwiseItem) -> list[PlannedCall]:
        return [self._call(item, self._order(item)), self._call(item, self._order(item, True))]

    def _verdict(self, original):
        if None in original:  # one order alone is the pairwise protocol, not both orders
            return None, None
        verdict = strict_verdict(*original) if self.rule == "strict" else net_verdict(original)
        return verdict, original[0] == original[1]


@register("keyed")
class KeyedJudge(_PairwiseProtocol):
    """One call that solves the question first, in the seeded order."""

    name = "keyed"

    def plan(self, item: PairwiseItem) -> list[PlannedCall]:
        return [self._call(item, self._order(item), keyed=True)]

    def _verdict(self, original):
        return original[0], None


@register("apoc")
class APOCJudge(_PairwiseProtocol):
    """Direct verdict, overridden when an independent both-orders check and the keyed judge
    agree on the other response (see :func:`apoc_verdict`). Calls: direct, both orders
    (sample 1), keyed."""

    name = "apoc"

    def plan(self, item: PairwiseItem) -> list[PlannedCall]:
        return [self._call(item, self._order(item)),
                self._call(item, self._order(item), sample=1),
                self._call(item, self._order(item, True), sample=1),
                self._call(item, self._order(item), keyed=True)]

    def _verdict(self, original):
        direct, first, second, keyed = original
        return apoc_verdict(direct, (first, second), keyed), None
