"""Scoring judge outputs that already exist: no model calls.

- :func:`score_outputs`: a JudgeBench outputs file (raw judge text of both orders per pair),
  parsed here, scored with JudgeBench's two-order rule, per bucket, with order consistency and
  position effects, and compared with the recording's own decisions.
- :func:`rescore_run`: a jurybox run directory, re-parsed with the current parser and
  re-decided, as if the bench ran again with every answer served from ``calls.jsonl``.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..datasets import BUCKETS, RecordedPair
from ..errors import ConfigError, DataError, ParseError, ProviderError, as_json
from ..limits import DEFAULT_MAX_ANSWER_CHARS, MAX_ANSWER_CHARS
from ..parsing import ShownVerdict, parse_verdict, strip_thinking
from ..protocols import Weights, to_original
from ..providers import ChatRequest, ChatResponse
from ..rundir import iter_records, read_manifest
from ..run import RunHooks
from ..sim import SimConfig
from ..stats import (BucketAccuracy, JudgeBenchCounts, bucket_accuracy, judgebench_counts,
                     judgebench_vote)
from .config import BenchConfig
from .run import BenchResult, replay_bench

__all__ = ["DecisionDiff", "OutputsScore", "score_outputs", "RecordedAnswers", "rescore_run",
           "config_from_manifest", "SkippedLinesWarning"]

_SHOWN = {"A>B": "A", "B>A": "B", "A=B": "tie"}
_ARENA_TOKEN = re.compile(r"\[\[([AB<>=]+)\]\]")
_ORDERS = ((0, 1), (1, 0))  # JudgeBench: judgment 0 shows A first, judgment 1 shows B first


@dataclass(frozen=True)
class DecisionDiff:
    """A judgment where this parse and the recording's decision differ (shown-order terms)."""

    pair_id: str
    order: Literal["original", "swapped"]
    recorded: str | None
    parsed: str | None
    reason: str


@dataclass(frozen=True)
class OutputsScore:
    """Scores of recorded outputs under one parse rule.

    Attributes:
        rule: ``"unanimous"`` (Arena-Hard's, which made the recorded decisions) or ``"last"``.
        counts: JudgeBench's two-order rule: correct / incorrect / tied pairs.
        buckets: accuracy per bucket (correct = 1, else 0), micro and macro.
        order_consistency: share of pairs with a verdict in both orders whose verdicts agree.
        first_shown_win_rate: share of decisive judgments picking the response shown first.
        no_verdict: judgments without a verdict.
        differences: judgments where this parse differs from the recorded decision.
    """

    rule: str
    counts: JudgeBenchCounts
    buckets: BucketAccuracy
    order_consistency: float | None
    n_both_orders: int
    first_shown_win_rate: float | None
    n_decisive: int
    no_verdict: int
    differences: list[DecisionDiff] = field(default_factory=list)


def _parse(text: str, rule: str) -> tuple[ShownVerdict | None, str | None]:
    try:
        return parse_verdict(text, rule=rule).verdict, None  # type: ignore[arg-type]
    except ParseError as exc:
        return None, str(exc)


def _reason(text: str, recorded: str | None, parsed: str | None, error: str | None) -> str:
    tokens = _ARENA_TOKEN.findall(strip_thinking(text))
    if len(set(tokens)) > 1 and recorded is None:
        return (f"{len(tokens)} verdict tokens that disagree ({', '.join(dict.fromkeys(tokens))})"
                f": the recording's rule gives no decision, the last token gives {parsed}")
    if error is not None:
        return f"no verdict here ({error}); the recording has {recorded}"
    return f"the recording has {recorded}, this parse {parsed} (tokens: {tokens})"


def score_outputs(pairs: Sequence[RecordedPair], *,
                  rule: Literal["last", "unanimous"] = "unanimous") -> OutputsScore:
    """Parse both orders' raw texts and score them (JudgeBench rule, buckets, order effects).

    Args:
        pairs: from :func:`jurybox.datasets.load_judgebench_outputs`.
        rule: verdict parse rule (see :func:`jurybox.parsing.parse_verdict`).
    """
    outcomes, credits, buckets, diffs = [], {}, {}, []
    consistent, decisive_first, no_verdict = [], [], 0
    for pair in pairs:
        verdicts = []
        for k, (order, text, recorded) in enumerate(zip(_ORDERS, pair.texts, pair.decisions)):
            shown, error = _parse(text, rule)
            no_verdict += shown is None
            if shown in ("A", "B"):
                decisive_first.append(shown == "A")
            if shown != (_SHOWN.get(recorded) if recorded else None):
                diffs.append(DecisionDiff(pair.pair_id, ("original", "swapped")[k], recorded,
                                          shown, _reason(text, recorded, shown, error)))
            verdicts.append(to_original(shown, order) if shown else None)
        better = "A" if pair.label == "A>B" else "B"
        outcome = judgebench_vote(verdicts, better)
        outcomes.append(outcome)
        credits[pair.pair_id], buckets[pair.pair_id] = float(outcome == "correct"), pair.bucket
        if None not in verdicts:
            consistent.append(verdicts[0] == verdicts[1])
    return OutputsScore(
        rule=rule, counts=judgebench_counts(outcomes),
        buckets=bucket_accuracy(credits, buckets, order=BUCKETS),
        order_consistency=sum(consistent) / len(consistent) if consistent else None,
        n_both_orders=len(consistent),
        first_shown_win_rate=(sum(decisive_first) / len(decisive_first)
                              if decisive_first else None),
        n_decisive=len(decisive_first), no_verdict=no_verdict, differences=diffs)


class SkippedLinesWarning(UserWarning):
    """A recording had lines that could not be read; they were skipped."""


class RecordedAnswers:
    """A run's ``calls.jsonl`` as an answer store: cache key -> the answer recorded for it.

    Lines that are not JSON objects (a write cut short, bad bytes) are skipped, as are
    answered records without a text ``key`` and ``text``; the requests they answered become
    recorded failures when replayed.

    Attributes:
        path: the file.
        skipped: numbers of the lines that are not JSON objects.
        unusable: how many JSON records had no error and no text key or text.
    """

    def __init__(self, calls_path: Path) -> None:
        self.path, self.unusable = calls_path, 0
        self.skipped: list[int] = []
        self._answers: dict[str, ChatResponse] = {}
        for r in iter_records(calls_path, self.skipped):
            if r.get("error") is not None:
                continue
            key, text, finish = r.get("key"), r.get("text"), r.get("finish_reason")
            if not isinstance(key, str) or not isinstance(text, str):
                self.unusable += 1
                continue
            self._answers[key] = ChatResponse(
                text=text, finish_reason=finish if isinstance(finish, str) else None)

    def problems(self) -> str | None:
        """One line saying what was skipped, or None when every line was read."""
        if not self.skipped and not self.unusable:
            return None
        parts = []
        if self.skipped:
            shown = ", ".join(map(str, self.skipped[:10])) + (
                ", ..." if len(self.skipped) > 10 else "")
            parts.append(f"{len(self.skipped)} line(s) that are not JSON records (line "
                         f"{shown})")
        if self.unusable:
            parts.append(f"{self.unusable} answer record(s) without a text key and text")
        return (f"{self.path}: skipped {' and '.join(parts)}; the calls they recorded are "
                f"failures in the rescore")

    def get(self, key: str) -> ChatResponse | None:
        return self._answers.get(key)

    def put(self, key: str, response: ChatResponse, *, replace: bool = False) -> None:
        """Nothing is added to a recording."""

    def __len__(self) -> int:
        return len(self._answers)


class _RecordedEndpoint:
    """The endpoint identity a run's cache keys were made with; it is never called."""

    name = "recorded"

    def __init__(self, identity: dict, *, model: str, simulated: bool) -> None:
        self._identity, self.model, self.simulated = identity, model, simulated

    def cache_identity(self) -> dict:
        return dict(self._identity)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        raise ProviderError("a recorded endpoint is never called")

    async def check(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


def _check_rescore_out(out: Path) -> None:
    """``out`` must be new, empty of runs, or a rescore written before (never another run)."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"cannot use {str(out)!r} as the output directory (--out): not a "
                          f"directory")
    if (out / "run.json").exists():
        try:
            previous = read_manifest(out / "run.json") or {}
        except DataError:
            previous = {}
        command = previous.get("command") or []
        written_by_score = previous.get("replayed") or (  # before "replayed" was recorded
            isinstance(command, list) and command[1:2] == ["score"])
        if not written_by_score:
            raise ConfigError(f"{str(out)!r} holds another run (not one jurybox score wrote); "
                              f"it is never overwritten: pass another --out")


def config_from_manifest(manifest: dict) -> BenchConfig:
    """The BenchConfig a run.json was written with."""
    config = dict(manifest["config"])
    config.pop("dataset_sha256", None)
    config["protocols"] = tuple(config["protocols"]) if config.get("protocols") else None
    config["weights"] = Weights(**config["weights"])
    config["sim"] = SimConfig(**config["sim"]) if config.get("sim") else SimConfig()
    # listwise runs written before prompt layout 2 have no field: they used layout 1
    # (pairwise protocols ignore it)
    config.setdefault("listwise_prompt", 1)
    return BenchConfig(**config)


def _read_manifest(run_dir: Path) -> dict:
    path = run_dir / "run.json"
    if not path.exists():
        raise DataError(run_dir, "not a jurybox run directory (no run.json)")
    try:
        manifest = json.loads(path.read_bytes())
        manifest["config"], manifest["model"]["endpoint"], manifest["dataset"]["sha256"]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        why = ("nested too deeply" if isinstance(exc, RecursionError) else
               f"no {exc} field" if isinstance(exc, KeyError) else
               "a field of the wrong kind" if isinstance(exc, TypeError) else
               f"not valid JSON: {exc}")
        raise DataError(path, f"not a readable run manifest ({why}); it was changed outside "
                              f"jurybox") from None
    if not (run_dir / "calls.jsonl").exists():
        raise DataError(run_dir / "calls.jsonl", "file not found: nothing to rescore")
    if not (run_dir / "calls.jsonl").is_file():
        raise DataError(run_dir / "calls.jsonl", "not a file: nothing to rescore")
    return manifest


def rescore_run(run_dir: str | Path, out: str | Path, *, hooks: RunHooks | None = None
                ) -> BenchResult:
    """Re-parse and re-decide a finished (or interrupted) run from its recorded calls.

    Every answer comes from the run's ``calls.jsonl`` (no model calls); a request without a
    recorded answer (a re-ask whose wording changed with the parser, say) is a recorded
    failure. ``out`` is rewritten each time: its run.json, calls.jsonl, items.jsonl and
    summary.json are removed first.

    Args:
        run_dir: a jurybox run directory (run.json, calls.jsonl).
        out: where the rescored run directory goes (must not be ``run_dir``).
        hooks: progress callbacks.

    Warns:
        SkippedLinesWarning: calls.jsonl has lines that could not be read (see
            :class:`RecordedAnswers`); the CLI prints it on one line.

    Raises:
        DataError: not a run directory, unreadable run.json, no calls.jsonl, or the dataset
            bytes changed since the run.
        ConfigError: ``out`` is the run directory itself, is not a directory, or holds a run
            that ``score`` did not write (it is never overwritten).
    """
    run_dir, out = Path(run_dir), Path(out)
    manifest = _read_manifest(run_dir)
    kind = manifest.get("kind", "bench")
    if kind != "bench":
        raise DataError(run_dir / "run.json", f"is a {kind!r} run; jurybox score replays "
                        f"bench runs (listwise or pairwise)")
    if out.resolve() == run_dir.resolve():
        raise ConfigError("--out must differ from the run directory being rescored")
    _check_rescore_out(out)
    for name in ("run.json", "calls.jsonl", "items.jsonl", "summary.json"):
        (out / name).unlink(missing_ok=True)
    endpoint = _RecordedEndpoint(manifest["model"]["endpoint"], model=manifest["model"]["spec"],
                                 simulated=bool(manifest["model"].get("simulated")))
    # the mode the last session's requests were made in (runs before structured outputs: off)
    last = (manifest.get("sessions") or [{}])[-1].get("structured") or {}
    answers = RecordedAnswers(run_dir / "calls.jsonl")
    if len(answers) == 0:
        problems = answers.problems()
        raise DataError(run_dir / "calls.jsonl", "holds no recorded answer to replay"
                        + (f"; {problems}" if problems else ""))
    if answers.problems():
        warnings.warn(SkippedLinesWarning(answers.problems()), stacklevel=2)
    return replay_bench(config_from_manifest(manifest), endpoint, answers, out,
                        expected_sha256=manifest["dataset"]["sha256"], hooks=hooks,
                        structured=last.get("mode", "off"),
                        max_answer_chars=_answer_budget(run_dir, manifest))


def _answer_budget(run_dir: Path, manifest: dict[str, Any]) -> int:
    """The answer budget the run read its answers with, so a replay reads them alike: the
    largest of its sessions' ``max_answer_chars`` (a resume may give a smaller budget than
    the session that read the answers; a unit it could not read under a smaller one was
    asked again), else run.json's ``options`` (runs before sessions recorded it), else the
    default (runs before the budget was recorded).

    Raises:
        DataError: a recorded budget is not a whole number from 1 to
            :data:`~jurybox.limits.MAX_ANSWER_CHARS` (the field named).
    """
    found: list[tuple[str, Any]] = [
        (f"sessions[{i}].max_answer_chars", s["max_answer_chars"])
        for i, s in enumerate(manifest.get("sessions") or [])
        if isinstance(s, dict) and "max_answer_chars" in s]
    options = manifest.get("options")
    if not found and isinstance(options, dict) and "max_answer_chars" in options:
        found = [("options.max_answer_chars", options["max_answer_chars"])]
    for name, budget in found:
        if isinstance(budget, bool) or not isinstance(budget, int) or not (
                1 <= budget <= MAX_ANSWER_CHARS):
            shown = as_json(budget, 40)
            raise DataError(run_dir / "run.json", f"field '{name}' must be a whole number "
                            f"from 1 to {MAX_ANSWER_CHARS:,}, got {shown}")
    return max((b for _, b in found), default=DEFAULT_MAX_ANSWER_CHARS)


