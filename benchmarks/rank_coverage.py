"""Coverage of Bradley-Terry bootstrap CIs on simulated systems of known strength (issue 31).

What it measures: the share of seeded runs in which the 95% prompt-bootstrap CI of
:func:`jurybox.ranking.fit_bradley_terry` contains each system's true strength (Elo points),
per system and pooled, with a Wilson 95% interval on that share, the mean CI width, and the
mean error of the point estimate; for two judging protocols x two position biases.

The simulation, per run:

- 5 systems of fixed true Bradley-Terry strengths ``theta`` (Elo): ``base`` 1000 (the
  baseline, the anchor at 1000), ``s1050``, ``s950``, ``s1120``, ``s880``.
- ``--prompts`` prompts (200); on each, every system against the baseline (AlpacaEval's
  design; ``--design all-pairs``: every pair of systems on each prompt).
- A judge with position bias: the response shown first wins with probability
  ``sigmoid((theta_first - theta_second) / ELO_PER_LOGIT + bias)`` (``bias`` in logits;
  ``--biases``, 0 and 0.5). No ties from a single order.
- Protocols: *one order*: the side shown first drawn at random (fair coin) per comparison,
  one :class:`OrderVerdict`, outcome 1 or 0; *both orders*: the judge sees the pair both
  ways (independent draws), two order verdicts, outcome their mean (1, 0.5 or 0).
- Fit: ``fit_bradley_terry(data, "base", rounds=--rounds, seed=run)``.

The truth: the judge's strengths *without* position bias, ``theta`` above: that is what a
ranking claims to measure. The baseline's score is 1000 by construction (its CI is the point
1000), so it is left out of coverage; "pooled" is the 4 other systems x runs (not independent
within a run: they share the baseline's draws, so the pooled Wilson interval is a little too
narrow).

What plain BT estimates under position bias: in both protocols the expected outcome of ``i``
against ``j`` is ``m = (sigmoid(d + bias) + sigmoid(d - bias)) / 2`` with
``d = (theta_i - theta_j) / ELO_PER_LOGIT``, and the BT fit (ties as half a win) converges to
``logit(m)``, which is closer to 0 than ``d`` for any bias != 0 (attenuation toward the
baseline). The benchmark prints that estimand ("BT target") next to the truth and also the
coverage of it, so a shortfall of coverage of ``theta`` can be told from a fault of the CI.
(Both orders do not remove the attenuation: they halve the per-comparison variance and turn
disagreements into ties, and ties pull toward 0.5 the same way.)

Run (measured on 2 shared cores: 0.33-0.6 s a run at 200 bootstrap rounds, so 200 runs x
6 conditions (biases 0, 0.5, 1) took 542 s; 1000 rounds take 1.5-2 s a run, ~25 minutes for
the 4-condition table, hence the default of 200 rounds):

    PYTHONPATH=src python benchmarks/rank_coverage.py [--runs 200] [--seed 0] [--rounds 200]
        [--prompts 200] [--biases 0 0.5] [--design baseline|all-pairs] [--jobs 1]
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from jurybox.ranking import (ELO_PER_LOGIT, Comparison, Comparisons, OrderVerdict,
                             fit_bradley_terry)
from jurybox.stats.length import wilson_interval

#: true strengths (Elo points) of the simulated systems; ``base`` is the baseline
STRENGTHS: dict[str, float] = {"base": 1000.0, "s1050": 1050.0, "s950": 950.0,
                               "s1120": 1120.0, "s880": 880.0}
BASELINE = "base"
PROTOCOLS = ("one order", "both orders")
FITS = ("plain", "first-shown")


def _sigmoid(x: np.ndarray | float) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float))))


def pairs_of(design: str, systems: list[str], baseline: str = BASELINE) -> list[tuple[str, str]]:
    """The (a, b) pairs judged on every prompt: each system against ``baseline`` (a the
    system), or every pair (``all-pairs``). Raises ValueError: another design."""
    if design == "baseline":
        return [(s, baseline) for s in systems if s != baseline]
    if design == "all-pairs":
        return [(x, y) for i, x in enumerate(systems) for y in systems[i + 1:]]
    raise ValueError(f"design must be 'baseline' or 'all-pairs', not {design!r}")


def simulate(seed: int | list[int], *, protocol: str, bias: float, prompts: int = 200,
             design: str = "baseline",
             strengths: dict[str, float] | None = None) -> Comparisons:
    """One simulated set of judged comparisons.

    Args:
        seed: seeds the judge's draws (numpy ``default_rng``).
        protocol: ``"one order"`` (first side drawn at random; one order verdict, outcome 1
            or 0) or ``"both orders"`` (two independent order verdicts, outcome their mean).
        bias: the judge's position bias in logits (added to the first-shown side).
        prompts: prompts; each one judges every pair of :func:`pairs_of` ``design``.
        strengths: true Elo per system (default :data:`STRENGTHS`).

    Returns:
        the comparisons (``prompts x pairs`` rows), each with its order verdicts.

    Raises:
        ValueError: an unknown protocol or design.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, not {protocol!r}")
    theta = STRENGTHS if strengths is None else strengths
    pairs = pairs_of(design, list(theta))
    rng = np.random.default_rng(seed)
    d = np.array([(theta[a] - theta[b]) / ELO_PER_LOGIT for a, b in pairs])  # (pairs,)
    p_a_first = _sigmoid(d + bias)  # a shown first: a wins
    p_b_first = 1.0 - _sigmoid(-d + bias)  # b shown first: a wins
    rows: list[Comparison] = []
    if protocol == "one order":
        a_first = rng.random((prompts, len(pairs))) < 0.5
        win = rng.random((prompts, len(pairs))) < np.where(a_first, p_a_first, p_b_first)
        for p in range(prompts):
            for k, (a, b) in enumerate(pairs):
                y = float(win[p, k])
                rows.append(Comparison(f"p{p}", a, b, y,
                                       orders=(OrderVerdict(a if a_first[p, k] else b, y),)))
    else:
        win_a_first = rng.random((prompts, len(pairs))) < p_a_first
        win_b_first = rng.random((prompts, len(pairs))) < p_b_first
        for p in range(prompts):
            for k, (a, b) in enumerate(pairs):
                y1, y2 = float(win_a_first[p, k]), float(win_b_first[p, k])
                rows.append(Comparison(f"p{p}", a, b, (y1 + y2) / 2,
                                       orders=(OrderVerdict(a, y1), OrderVerdict(b, y2))))
    return Comparisons.of(rows)


def bt_target(bias: float, design: str = "baseline",
              strengths: dict[str, float] | None = None) -> dict[str, float]:
    """What plain BT converges to under position ``bias`` (Elo, baseline 1000): the BT fit
    of the expected outcomes ``(sigmoid(d + bias) + sigmoid(d - bias)) / 2`` of every pair
    (the same for both protocols). Equals the strengths when ``bias`` is 0."""
    theta = STRENGTHS if strengths is None else strengths
    rows = []
    for a, b in pairs_of(design, list(theta)):
        d = (theta[a] - theta[b]) / ELO_PER_LOGIT
        m = float((_sigmoid(d + bias) + _sigmoid(d - bias)) / 2)
        # on 1000 prompts: the fit's ridge (C = 1e6) is then negligible (< 1e-6 Elo)
        rows += [Comparison(f"expected{p}", a, b, m) for p in range(1000)]
    fit = fit_bradley_terry(Comparisons.of(rows), BASELINE, rounds=1)
    return {s.system: s.score for s in fit.scores}


@dataclass(frozen=True)
class RunResult:
    """One run's fit: per system (in ``systems`` order) the score, CI and bootstrap SE."""

    systems: tuple[str, ...]
    score: np.ndarray
    low: np.ndarray
    high: np.ndarray
    se: np.ndarray


def one_run(run: int, *, seed: int, protocol: str, bias: float, prompts: int, design: str,
            rounds: int, first_shown: bool = False) -> RunResult:
    """Simulate run ``run`` of a condition and fit BT with ``rounds`` bootstrap rounds (the
    judge's draws seeded by (seed, run, protocol, bias); the bootstrap's by run), with the
    first-shown term when ``first_shown`` (same data as without)."""
    sim_seed = [seed, run, PROTOCOLS.index(protocol), int(round(bias * 1000))]
    data = simulate(sim_seed, protocol=protocol, bias=bias, prompts=prompts, design=design)
    fit = fit_bradley_terry(data, BASELINE, rounds=rounds, seed=seed * 100_003 + run,
                            first_shown=first_shown)
    systems = fit.systems
    return RunResult(systems,
                     np.array([fit[s].score for s in systems]),
                     np.array([fit[s].ci.low for s in systems]),
                     np.array([fit[s].ci.high for s in systems]),
                     np.array([fit[s].ci.standard_error for s in systems]))


def _run_star(kwargs: dict) -> RunResult:
    return one_run(**kwargs)


def _pct_ci(hits: int, n: int) -> str:
    ci = wilson_interval(hits / n, n)
    return f"{100 * hits / n:5.1f} [{100 * ci.low:4.1f}, {100 * ci.high:5.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="seeded runs per condition")
    parser.add_argument("--seed", type=int, default=0, help="base seed")
    parser.add_argument("--rounds", type=int, default=200, help="bootstrap rounds per fit")
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--biases", type=float, nargs="+", default=[0.0, 0.5],
                        help="position biases (logits)")
    parser.add_argument("--design", choices=["baseline", "all-pairs"], default="baseline")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--fits", nargs="+", choices=FITS, default=list(FITS),
                        help="plain BT, and BT with the first-shown term (fit_bradley_terry's "
                             "first_shown=True)")
    args = parser.parse_args()

    print(f"BT CI coverage: {args.runs} runs per condition, {args.prompts} prompts, design "
          f"{args.design}, {args.rounds} bootstrap rounds, seed {args.seed}, 95% CIs")
    print("truth = strength without position bias; target = what plain BT converges to "
          "under the bias")
    print("coverage % [Wilson 95%] of truth; and of target; width = mean CI width (Elo); "
          "err = mean (estimate - truth)")
    header = (f"{'protocol':11} {'bias':>4} {'system':7} {'truth':>6} {'target':>7} "
              f"{'cover truth':>20} {'cover target':>20} {'n':>5} {'width':>6} {'err':>6}")
    print(header)
    print("-" * len(header))
    total = time.perf_counter()
    executor = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for fit in args.fits:
            print(f"fit: {fit}" + (" (target = truth: the term models the bias)"
                                   if fit == "first-shown" else ""))
            for protocol in PROTOCOLS:
                for bias in args.biases:
                    start = time.perf_counter()
                    jobs = [dict(run=r, seed=args.seed, protocol=protocol, bias=bias,
                                 prompts=args.prompts, design=args.design, rounds=args.rounds,
                                 first_shown=fit == "first-shown")
                            for r in range(args.runs)]
                    results = (list(executor.map(_run_star, jobs, chunksize=4)) if executor
                               else [one_run(**j) for j in jobs])
                    seconds = time.perf_counter() - start
                    _print_condition(protocol, bias, results, args.design,
                                     plain=fit == "plain")
                    print(f"{'':11} ({args.runs} runs in {seconds:.1f} s, "
                          f"{1000 * seconds / args.runs:.0f} ms a run)")
    finally:
        if executor:
            executor.shutdown()
    print(f"total {time.perf_counter() - total:.1f} s")


def _print_condition(protocol: str, bias: float, results: list[RunResult], design: str, *,
                     plain: bool = True) -> None:
    systems = results[0].systems
    target = bt_target(bias, design) if plain else STRENGTHS
    score = np.stack([r.score for r in results])
    low = np.stack([r.low for r in results])
    high = np.stack([r.high for r in results])
    truth = np.array([STRENGTHS[s] for s in systems])
    tgt = np.array([target[s] for s in systems])
    cover = (low <= truth) & (truth <= high)
    cover_t = (low <= tgt) & (tgt <= high)
    width = high - low
    n = len(results)
    keep = [i for i, s in enumerate(systems) if s != BASELINE]
    order = sorted(keep, key=lambda i: -truth[i])
    for i in order:
        print(f"{protocol:11} {bias:4.2f} {systems[i]:7} {truth[i]:6.0f} {tgt[i]:7.1f} "
              f"{_pct_ci(int(cover[:, i].sum()), n):>20} "
              f"{_pct_ci(int(cover_t[:, i].sum()), n):>20} {n:5d} "
              f"{width[:, i].mean():6.1f} {(score[:, i] - truth[i]).mean():6.1f}")
    pooled, pooled_t = cover[:, keep], cover_t[:, keep]
    m = pooled.size
    print(f"{protocol:11} {bias:4.2f} {'pooled':7} {'':6} {'':7} "
          f"{_pct_ci(int(pooled.sum()), m):>20} {_pct_ci(int(pooled_t.sum()), m):>20} "
          f"{m:5d} {width[:, keep].mean():6.1f} {'':>6}")
    if not math.isfinite(float(width[:, keep].mean())):
        print("  (some CIs are undefined)")


if __name__ == "__main__":
    main()
