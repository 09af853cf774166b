"""The simulated judge's behaviour, separate from HTTP: text in, answer (or fault) out.

It reads a listwise prompt back (question and labelled candidate blocks), finds each candidate
among the items it was loaded with, and scores it: latent quality (gold or not) + a fixed
per-candidate offset + the position bias of where it was shown + per-call noise seeded by the
request. Every random draw is a hash of its inputs, so the same request gets the same answer.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..datasets import ListwiseItem, PairwiseItem
from ..protocols.pairwise_prompts import JSON_MARKER, KEYED_MARKER, RESPONSE_BLOCK
from ..protocols.prompts import CANDIDATE_BLOCK, QUESTION_BLOCK, escape_text
from ..protocols.rubric_prompts import RUBRIC_MARKER
from .rubric import RubricKnowledge, rubric_answer
from .config import SimConfig, bias_vector

__all__ = ["SimJudge", "SimAnswer", "SimStats"]

_HEDGES = re.compile(r"\b(no comment|not sure|unclear|unknown|depends|i don't know|"
                     r"uncertain|there is no|no one knows|it is not known)\b", re.I)


def _u(*parts: object) -> float:
    """Uniform [0, 1) from a hash of ``parts``."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


def _gauss(*parts: object) -> float:
    return random.Random(_u(*parts)).gauss(0.0, 1.0)


@dataclass(frozen=True)
class SimAnswer:
    """What the server should do: an HTTP status and either text or an error body."""

    status: int = 200
    text: str = ""
    finish_reason: str = "stop"
    delay_s: float = 0.0
    retry_after_s: float | None = None
    unknown: int = 0  # candidates or responses of the prompt it does not know
    #: a pairwise verdict's probability that the first shown response is better (the token
    #: probability its log-probabilities report); None for anything else
    p_first: float | None = None


@dataclass
class SimStats:
    """What the simulated judge was asked, since it started (``GET /v1/sim/stats``, which
    adds the server's capacity counters: :meth:`jurybox.sim.capacity.Capacity.stats`).

    Attributes:
        known_items: items it was loaded with.
        prompts: listwise and pairwise prompts answered (retries of a refused attempt not
            counted; re-asks are prompts).
        unknown_prompts: of those, prompts with at least one candidate or response it does
            not know (it was started with another dataset: their judgments are noise around
            a middling quality).
        unknown_candidates: candidates and responses it did not know, over those prompts.
    """

    known_items: int = 0
    prompts: int = 0
    unknown_prompts: int = 0
    unknown_candidates: int = 0


class SimJudge:
    """A position-biased, noisy judge that knows which candidates are correct.

    Args:
        items: the items whose candidates it will recognise.
        config: behaviour.
        fault_epoch: keys the injected API faults (429, 500, slow) with the request and its
            attempt. A run passes its run directory's session count, so a rerun into the same
            directory meets different transient faults, as it would against a real endpoint,
            while the same command from scratch stays reproducible. Answers never depend on it.
    """

    def __init__(self, items: Iterable[ListwiseItem | PairwiseItem] = (),
                 config: SimConfig | None = None, rubric: RubricKnowledge | None = None,
                 *, fault_epoch: int = 0):
        self.config = config or SimConfig()
        self.fault_epoch = fault_epoch
        self.rubric = rubric
        # (question, candidate) -> gold or not; None: known, unlabelled (jurybox judge)
        self._gold: dict[tuple[str, str], bool | None] = {}
        self.stats = SimStats()
        for item in items:
            self.stats.known_items += 1
            if isinstance(item, PairwiseItem):
                question = escape_text(item.question)
                for label, text in zip("AB", item.responses):
                    self._gold[(question, escape_text(text))] = (
                        label == item.better if item.labelled else None)
                continue
            question = escape_text(item.prompt)
            for i, text in enumerate(item.candidates):
                self._gold[(question, escape_text(text))] = (
                    i in item.gold if item.labelled else None)

    def knowledge(self) -> str:
        """sha256 (hex, 16 digits) of everything the judge knows: every (question, candidate)
        it was loaded with and whether that candidate is gold (None: unlabelled), and the
        rubric knowledge. The simulated judge is told the answers, so what it knows is part
        of its cache identity: the same file judged again with another gold is another
        judge, never served the first judge's answers."""
        h = hashlib.sha256()
        for entry in sorted(self._gold.items(), key=lambda kv: kv[0]):
            h.update(json.dumps(entry).encode())
        if self.rubric is not None:
            h.update(self.rubric.digest().encode())
        return h.hexdigest()[:16]

    def quality(self, question: str, text: str) -> float:
        """Latent quality of a candidate (before position bias and call noise): the gold or
        the other level; midway for an unlabelled or unknown candidate; plus a stable
        per-candidate offset."""
        cfg = self.config
        gold = self._gold.get((question, text))
        base = cfg.gold_quality if gold else cfg.other_quality
        if gold is None:  # unlabelled or unknown candidate: midway, still stable
            base = (cfg.gold_quality + cfg.other_quality) / 2
        return base + cfg.candidate_noise * _gauss("cand", cfg.seed, question, text)

    def answer(self, body: dict, attempt: int) -> SimAnswer:
        """Answer one chat-completions body; ``attempt`` counts earlier identical bodies."""
        cfg, faults = self.config, self.config.faults
        # asking for log-probabilities does not change the answer (nor its rolls)
        asked = {k: v for k, v in body.items() if k not in ("logprobs", "top_logprobs")}
        ident = hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()
        delay = (cfg.latency_ms + cfg.latency_jitter_ms * _u("lat", ident, attempt)) / 1000
        if attempt < faults.first_429:
            return SimAnswer(429, "rate limited (injected)", delay_s=delay,
                             retry_after_s=faults.retry_after_s)
        if attempt < faults.first_429 + faults.first_500:
            return SimAnswer(500, "server error (injected)", delay_s=delay)
        honour = False
        if body.get("response_format") is not None:
            if cfg.structured == "refuse":
                return SimAnswer(400, "response_format is not supported by this server "
                                      "(simulated)", delay_s=delay)
            honour = cfg.structured == "honour"
        # epoch 0 keeps the rolls of runs written before the epoch existed
        roll = (_u("fault", ident, attempt) if self.fault_epoch == 0
                else _u("fault", ident, attempt, self.fault_epoch))
        for rate, answer in ((faults.rate_429, SimAnswer(429, "rate limited (injected)",
                                                         retry_after_s=faults.retry_after_s)),
                             (faults.rate_500, SimAnswer(500, "server error (injected)")),
                             (faults.rate_slow, SimAnswer(200, "", delay_s=faults.slow_s))):
            if roll < rate:
                return SimAnswer(answer.status, answer.text, delay_s=delay + answer.delay_s,
                                 retry_after_s=answer.retry_after_s)
            roll -= rate
        text, unknown, p_first = self._text(body, ident, plain=honour)
        roll = _u("output", ident)
        if honour:  # a grammar keeps the shape: only truncation and refusals get through
            roll = max(roll, faults.rate_malformed)
        if roll < faults.rate_malformed:
            text = "Candidate A looks best overall, then B. {ranking: A B}"
        elif roll < faults.rate_malformed + faults.rate_truncated:
            return SimAnswer(200, text[: len(text) // 2], finish_reason="length", delay_s=delay,
                             unknown=unknown)
        elif roll < faults.rate_malformed + faults.rate_truncated + faults.rate_refusal:
            text = "I'm sorry, but I can't help with judging these answers."
        budget = 4 * int(body.get("max_tokens") or 1 << 30)  # ~4 characters a token
        if len(text) > budget:
            return SimAnswer(200, text[:budget], finish_reason="length", delay_s=delay,
                             unknown=unknown)
        return SimAnswer(200, text, delay_s=delay, unknown=unknown, p_first=p_first)

    def _count(self, question: str, texts: Iterable[str]) -> int:
        """Count a prompt in :attr:`stats`; returns how many of ``texts`` it does not know."""
        unknown = sum((question, text) not in self._gold for text in texts)
        self.stats.prompts += 1
        self.stats.unknown_prompts += unknown > 0
        self.stats.unknown_candidates += unknown
        return unknown

    def _text(self, body: dict, ident: str, *,
              plain: bool = False) -> tuple[str, int, float | None]:
        """The answer's text, how many shown candidates or responses are unknown, and a
        pairwise verdict's probability that the first shown is better (else None)."""
        user = next((m.get("content", "") for m in body.get("messages", [])
                     if m.get("role") == "user"), "")
        question_match = QUESTION_BLOCK.search(user)
        question = question_match.group(2) if question_match else ""
        call = f"{ident}:{body.get('seed')}"
        if blocks := CANDIDATE_BLOCK.findall(user):
            unknown = self._count(question, (text for _, _, text in blocks))
            return self._listwise_text(question, blocks, call, plain=plain), unknown, None
        if RUBRIC_MARKER in user:
            return rubric_answer(user, self.rubric, _gauss("call", call, "rubric")), 0, None
        if responses := RESPONSE_BLOCK.findall(user):
            shown = [text for _, _, text in responses]
            unknown = self._count(question, shown)
            text, p_first = self._pairwise_text(question, shown, call,
                                                keyed=KEYED_MARKER in user,
                                                as_json=JSON_MARKER in user, plain=plain)
            return text, unknown, p_first
        return "I can only judge prompts that show labelled candidates or responses.", 0, None

    def _pairwise_text(self, question: str, shown: list[str], call: str, *, keyed: bool,
                       as_json: bool, plain: bool = False) -> tuple[str, float | None]:
        """The verdict's text and, for A or B, the probability that the first shown is
        better: ``1 / (1 + exp(-gap / s))`` of this call's score gap (quality, position and
        length bias, noise) in units of the call noise ``s`` (1 point when it is 0), so a
        close call is an unsure one and the verdict is always the likelier letter."""
        cfg = self.config
        bias = bias_vector(cfg.bias, 2)
        bias_scale, noise_scale = (cfg.keyed_bias_scale, cfg.keyed_noise_scale) if keyed else (1, 1)
        lengths = _length_points(shown, cfg.length_bias)
        score = [self.quality(question, text) + bias_scale * bias[pos] + lengths[pos]
                 + noise_scale * cfg.call_noise * _gauss("call", call, pos)
                 for pos, text in enumerate(shown)]
        gap = score[0] - score[1]
        verdict = "tie" if abs(gap) < cfg.tie_margin else "A" if gap > 0 else "B"
        p_first = None if verdict == "tie" else 1 / (1 + math.exp(
            max(-50.0, min(50.0, -gap / (cfg.call_noise or 1.0)))))
        solution = "My solution: working through the question gives one answer.\n" if keyed else ""
        if as_json and plain:  # the schema's shape (verdict_schema), nothing around it
            fields = {"solution": solution.strip()} if keyed else {}
            return json.dumps({**fields, "verdict": verdict,
                               "rationale": "Compared both."}), p_first
        if as_json:
            answer = json.dumps({"verdict": verdict, "rationale": f"{solution}Compared both."})
            return (f"```json\n{answer}\n```" if _u("style", call) < 0.3 else answer), p_first
        strong = ">>" if abs(gap) >= 15 else ">"
        token = {"A": f"[[A{strong}B]]", "B": f"[[B{strong}A]]", "tie": "[[A=B]]"}[verdict]
        lean = ""
        if cfg.style == "mixed" and _u("style", call) < 0.2:  # a first impression, revised
            lean = "At first glance I leaned [[B>A]], but checking the final answers changes "
            lean = lean if verdict != "B" else lean.replace("[[B>A]]", "[[A>B]]")
            lean += "that.\n"
        return (f"{solution}{lean}Response A and response B differ in their final answers.\n"
                f"My final verdict is {token}"), p_first

    def _listwise_text(self, question: str, blocks: list, call: str, *,
                       plain: bool = False) -> str:
        cfg = self.config
        bias = bias_vector(cfg.bias, len(blocks))
        judged = {}
        lengths = _length_points([text for _, _, text in blocks], cfg.length_bias)
        for pos, (label, _tag, text) in enumerate(blocks):
            score = (self.quality(question, text) + bias[pos] + lengths[pos]
                     + cfg.call_noise * _gauss("call", call, label))
            score = min(100, max(0, round(score)))
            judged[label] = {"score": score, "major_factual_error": score < 45,
                             "hallucinated_specificity": _u("spec", call, label) < 0.1,
                             "calibrated_uncertainty": bool(_HEDGES.search(text))}
        ranking = sorted(judged, key=lambda lab: (-judged[lab]["score"], lab))
        answer = {"candidates": judged, "ranking": ranking,
                  "rationale": f"{ranking[0]} is the most accurate."}
        return json.dumps(answer) if plain else self._styled(answer, call)

    def _styled(self, answer: dict, call: str) -> str:
        if self.config.style == "plain":
            return json.dumps(answer)
        roll = math.floor(_u("style", call) * 5)
        if roll == 1:
            return f"```json\n{json.dumps(answer, indent=1)}\n```"
        if roll == 2:
            return ("<think>Compare each candidate with what is known.</think>\n"
                    + json.dumps(answer))
        if roll == 3:
            return f"Here is my assessment.\n{json.dumps(answer)}\nI hope this helps."
        if roll == 4:
            for entry in answer["candidates"].values():
                entry["score"] = str(entry["score"])
        return json.dumps(answer)


def _length_points(texts: list[str], points: float) -> list[float]:
    """Per shown text, ``points`` scaled by its length between the shortest (0) and the
    longest (1) of ``texts`` (characters); all 0 when ``points`` is 0 or all lengths are equal.

    >>> _length_points(["ab", "abcd", "abc"], 10.0)
    [0.0, 10.0, 5.0]
    """
    lengths = [len(t) for t in texts]
    low, high = min(lengths), max(lengths)
    if not points or high == low:
        return [0.0] * len(texts)
    return [points * (n - low) / (high - low) for n in lengths]
