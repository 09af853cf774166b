"""A live cascade of judges, cheapest first (Trust or Escalate, Jung et al., ICLR 2025, section
3.2): each judge judges only the items no earlier judge accepted; each stage's threshold on
its order agreement is calibrated, with ``delta / stages``, on the labelled calibration items
that reached it; an item whose confidence falls short goes to the next judge, and is abstained
on after the last.

The labelled items are split once, by a seeded draw (:func:`~jurybox.stats.selective.
split_items`), into calibration and test items; every stage uses that split, so the test
items are never calibrated on. Unlabelled items are judged and accepted or passed on like
the others, never scored. Each stage is a judge run of its own (``out/stage-<k>-<model>``:
its cache, records and report), so a rerun asks nothing again.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..stats.selective import (Calibration, SelectiveOutcome, calibrate_threshold,
                               check_shares, split_items)

__all__ = ["LiveCascade", "LiveStage", "cascade_judge"]


@dataclass(frozen=True)
class LiveStage:
    """One judge of a live cascade.

    Attributes:
        model: its name (its model spec unless named). out: its run directory.
        rule: its calibration (``delta / stages``, on the calibration items that reached it).
        asked: items sent to it. accepted: of those, the ones it accepted (every kind).
        test_accepted, test_agree: labelled test items it accepted, and agreeing with the label.
        failed: items asked that have no verdict (every call failed): never accepted.
        model_calls, tokens: what its run asked over every session (calls made, prompt +
            completion tokens: a rerun served from the cache adds nothing). usd: its cost,
            when a price is known.
    """

    model: str
    out: Path
    rule: Calibration
    asked: int
    accepted: int
    test_accepted: int
    test_agree: int
    failed: int
    model_calls: int
    tokens: int
    usd: float | None


@dataclass(frozen=True)
class LiveCascade:
    """A live cascade's stages and its outcome on the labelled test items.

    Attributes:
        stages: cheapest first. n_items: items given. n_calibration: labelled calibration
            items. test: the whole cascade on the labelled test items (accepted at any stage).
        abstained: items no stage accepted (every kind).
    """

    target: float
    delta: float
    stages: tuple[LiveStage, ...]
    n_items: int
    n_calibration: int
    test: SelectiveOutcome
    abstained: int


def _folder(k: int, model: str, ids: Sequence[str]) -> str:
    """``stage-<k>-<name>``; a later stage's folder also names the items it was given (a
    rerun whose first stage decides more items, once its failed calls are asked again, sends
    another set on: a run directory of its own, its answers from the cache)."""
    name = f"stage-{k}-" + re.sub(r"[^A-Za-z0-9._-]+", "-", model)[:60]
    if k == 1:
        return name
    import hashlib

    return f"{name}-{hashlib.sha256(chr(10).join(ids).encode()).hexdigest()[:8]}"


def _totals(folder: Path) -> tuple[int, int]:
    """(model calls, tokens) over every session of a stage's run (run.json's totals)."""
    from ..rundir.files import read_manifest

    totals = (read_manifest(folder / "run.json") or {}).get("totals") or {}
    calls = totals.get("model_calls") or 0
    tokens = (totals.get("prompt_tokens") or 0) + (totals.get("completion_tokens") or 0)
    return int(calls), int(tokens)


def _check_stages(plan: list[tuple[str, str, dict[str, Any]]], settings: dict[str, Any]) -> None:
    """Every stage's spec, base URL and API key, before any stage runs.

    Raises:
        ConfigError: as :func:`~jurybox.run.endpoint.check_endpoint` and
            :func:`~jurybox.providers.spec.require_key`.
    """
    from ..providers.spec import require_key
    from ..run.endpoint import check_endpoint

    for model, _, own in plan:
        base_url = own.get("base_url", settings.get("base_url"))
        url = base_url if isinstance(base_url, str) or base_url is None else None
        require_key(check_endpoint(model, url), url)


def _stage(entry: str | dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """(model, name, its own settings) of a cascade entry: a model spec, or a dict with
    ``model``, an optional ``name`` and any judge setting (``base_url``, ``sim``, ...)."""
    if isinstance(entry, str):
        return entry, entry, {}
    if not isinstance(entry, dict) or not isinstance(entry.get("model"), str):
        raise ValueError(f"a cascade stage is a model spec or a dict with 'model', got "
                         f"{entry!r:.80}")
    own = {k: v for k, v in entry.items() if k not in ("model", "name")}
    return entry["model"], str(entry.get("name") or entry["model"]), own


def cascade_judge(items: Sequence[Any], models: Sequence[str | dict[str, Any]], *,
                  target: float, out: str | Path, delta: float = 0.1,
                  calibration_share: float = 0.5, seed: int = 0, protocol: str = "pcf",
                  options: Any = None,
                  **settings: Any) -> LiveCascade:
    """Judge ``items`` with a cascade of ``models`` (module docstring).

    Args:
        items: the items, as :func:`jurybox.judge` takes them (dicts of the generic format:
            ``id``, ``prompt``, ``candidates``, ``gold`` for the labelled ones; or
            ListwiseItem/PairwiseItem values), each with an id.
        models: the judges, cheapest first (a list, or a comma list): each a model spec
            (``sim``, ``local``, ``openai/gpt-4o-mini``) or a dict with ``model``, an optional
            ``name`` and its own judge settings (``base_url``, ``sim``, ``k``, ...); at least
            one, no name twice.
        target, delta: the agreement to guarantee and the probability that it fails, in
            (0, 1); each stage gets ``delta / len(models)``.
        out: the folder of the stages' run directories.
        calibration_share, seed: the split of the labelled items.
        protocol, options, settings: each stage's judge settings and run options
            (:func:`jurybox.judge`'s; one :class:`~jurybox.RunOptions` for every stage: its
            cache, retries, structured output).

    Raises:
        ValueError: no model, a model twice, an item without an id, fewer than 2 labelled
            items, settings out of range (checked, with every stage's spec, base URL and API
            key, before any stage runs).
        ConfigError, DataError, ProviderError: as :func:`jurybox.judge`.
    """
    from .call import judge as judge_one
    from .items import input_rows

    if isinstance(models, str):
        models = [m.strip() for m in models.split(",") if m.strip()]
    plan = [_stage(m) for m in models]
    names = [name for _, name, _ in plan]
    if not plan or len(set(names)) != len(names):
        raise ValueError(f"a cascade needs one or more judges of different names, got {names}")
    check_shares(target=target, delta=delta)
    items = list(items)
    if any(isinstance(i, Mapping) and not (i.get("id") or i.get("item_id")) for i in items):
        raise ValueError("every item of a cascade needs an id")  # not its position: stages
    rows = input_rows(items)  # dicts, ListwiseItem or PairwiseItem values, as judge takes
    ids = [str(r["id"]) for r in rows]
    labelled = [i for i, r in zip(ids, rows) if r.get("gold") not in (None, [], "")]
    if len(labelled) < 2:
        raise ValueError(f"{len(labelled)} labelled item(s): a cascade calibrates on labelled "
                         f"items (gold)")
    cal_at, _ = split_items(len(labelled), calibration_share, seed)
    _check_stages(plan, settings)
    cal = {labelled[k] for k in cal_at}
    test = set(labelled) - cal
    share = delta / len(plan)
    remaining = list(zip(ids, rows))
    stages = []
    taken = agreeing = 0
    for k, (model, name, own) in enumerate(plan, 1):
        if not remaining:
            break
        folder = Path(out) / _folder(k, name, [i for i, _ in remaining])
        judged = judge_one([r for _, r in remaining], model=model, protocol=protocol,
                           out=folder, options=options, **{**settings, **own})
        by_id = {j.item_id: j for j in judged.items}
        conf = {i: (math.nan if j.failed or j.agreement_rate is None else j.agreement_rate)
                for i, j in by_id.items()}
        right = {i: j.credit == 1.0 for i, j in by_id.items()}
        here = [i for i, _ in remaining if i in cal and not math.isnan(conf[i])]
        rule = calibrate_threshold([conf[i] for i in here], [right[i] for i in here],
                                   target=target, delta=share)
        accepted = {i for i, _ in remaining if rule.accepts(conf[i])}
        test_acc = [i for i in accepted if i in test]
        n_ok = sum(right[i] for i in test_acc)
        calls, tokens = _totals(folder)
        failed = sum(1 for i, _ in remaining if math.isnan(conf[i]))
        stages.append(LiveStage(name, folder, rule, len(remaining), len(accepted),
                                len(test_acc), n_ok, failed, calls, tokens,
                                judged.run.cost_usd))
        taken, agreeing = taken + len(test_acc), agreeing + n_ok
        remaining = [(i, r) for i, r in remaining if i not in accepted]
    outcome = SelectiveOutcome.of(len(test), taken, agreeing)
    return LiveCascade(target, delta, tuple(stages), len(rows), len(cal), outcome,
                       len(remaining))
