"""``jurybox score`` on recorded judgments: by default, per set (subset) one position-bias table
of one row per (judge, strategy) for the set's default strategy, the legend first; with
``--detail`` every strategy with every rule, and the juries; with ``--out`` all of it, every
CI included, in summary.json.

The default strategy of a set (:func:`default_strategy`): the set's only strategy when it has
one; else the first of :data:`DEFAULT_STRATEGIES` it has (LLMBar's plain prompt: Vanilla, or
Vanilla_NoRules in its Processed sets); else its first strategy by name.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from ..errors import ConfigError, did_you_mean
from ..terminal import data, safe_text
from ._common import console
from ._fit import print_table
from ._outputs import output_folder as _output_folder
from ._tables import decimals, pct

if TYPE_CHECKING:
    from ..recorded import Recording
    from ..recorded.jury import JuryScore
    from ..recorded.scoring import RecordingScore

__all__ = ["DEFAULT_STRATEGIES", "POSITION_CAPTION", "RECORDED_CAPTION", "UNPARSED_RULES",
           "bounds_cell", "cons_caption", "default_strategy", "p_cell",
           "jury_lines", "jury_table", "parse_weights", "position_table", "print_recorded",
           "recorded_table"]

#: How an item with an unparsed order counts for position consistency (``--unparsed``).
UNPARSED_RULES = ("excluded", "inconsistent")


def cons_caption(unparsed: str) -> str:
    """The caption's sentence on ``cons``'s counting rule."""
    return ("cons counts an item with an unparsed order as inconsistent (--unparsed "
            "inconsistent; Shi et al. 2024)." if unparsed == "inconsistent" else
            "cons leaves out an item with an unparsed order (the default; --unparsed "
            "inconsistent counts it inconsistent, as Shi et al. 2024).")


def _cons(s: RecordingScore, unparsed: str) -> float:
    return s.consistency_strict if unparsed == "inconsistent" else s.consistency


def _orders(s: RecordingScore, k: int) -> list[str]:
    """The per-order accuracy cells: each order up to 4 (``—`` for one the recording lacks),
    else the lowest and the highest."""
    per = [a.accuracy for a in s.by_order]
    if k > 4:
        known = [x for x in per if not math.isnan(x)]
        return [pct(min(known)), pct(max(known))] if known else ["—", "—"]
    return [pct(per[j]) if j < len(per) else "—" for j in range(k)]


def _order_columns(scores: Sequence[RecordingScore]) -> tuple[int, list[str]]:
    k = max(max(len(s.by_order) for s in scores), 2)
    return k, ([f"o{j + 1}" for j in range(k)] if k <= 4 else ["o min", "o max"])


#: A set's default strategy, the first of these it has (else its first by name).
DEFAULT_STRATEGIES = ("Vanilla", "Vanilla_NoRules")


def p_cell(test: object) -> str:
    """A paired test's p-value as a table cell (``—``: no test)."""
    p = getattr(test, "p_value", None)
    if p is None or math.isnan(p):
        return "—"
    return f"{p:.0e}" if p < 0.001 else f"{p:.3f}"


def bounds_cell(low: float, high: float) -> str:
    """A CI as ``57-81`` (one decimal fewer than the figures: none by default)."""
    d = max(0, decimals() - 1)
    return "" if math.isnan(low) or math.isnan(high) else f"{100 * low:.{d}f}-{100 * high:.{d}f}"


def _ci(result: object) -> str:
    return bounds_cell(*result.confidence_interval)  # type: ignore[attr-defined]


def default_strategy(strategies: Collection[str]) -> str:
    """The strategy a set's default table shows (module docstring): its only one, else the
    first of :data:`DEFAULT_STRATEGIES` it has, else the first by name.

    >>> default_strategy({"CoT", "Vanilla_NoRules"}), default_strategy({"b", "a"})
    ('Vanilla_NoRules', 'a')
    """
    for name in DEFAULT_STRATEGIES:
        if name in strategies and len(strategies) > 1:
            return name
    return min(strategies)


POSITION_CAPTION = (
    "o1, o2: accuracy in each presentation order (% of parsed verdicts). both: both orders "
    "under the net rule (+1 per order for a response; a net tie is right only on a tie "
    "label). cons: position consistency, % of pairs whose verdicts "
    "agree across orders. 1st: % of decisive verdicts for the response shown first (50 = no lean). "
    "95% CI: of the column to its left, percentile bootstrap of the pairs (2,000 resamples, "
    "seed 0; for 1st, a pair's two verdicts drawn together). fail: unparsed verdicts (never "
    "scored).")


def position_table(subset: str, strategy: str, scores: Sequence[RecordingScore], *,
                   unparsed: str = "excluded") -> Table:
    """One set's position-bias figures for one strategy, one row per judge (``scores``: that
    set's and strategy's, in row order): each order's accuracy (up to 4 orders, else the
    lowest and highest), both orders' with its CI, cons (``unparsed``: its rule,
    :data:`UNPARSED_RULES`), the first-shown rate with its CI, failures. With two orders, at
    most 52 characters besides the judge's name, so 80 columns hold names of up to 28
    (print_table splits it beyond)."""
    n = max(s.n for s in scores)
    title = f"{subset}, {strategy}: {n} pairs" if strategy else f"{subset}: {n} pairs"
    table = Table(title=data(title), title_justify="left", box=None, pad_edge=False,
                  padding=(0, 1), header_style="bold")
    k, order_columns = _order_columns(scores)
    for col in ("judge", *order_columns, "both", "95% CI", "cons", "1st", "95% CI ", "fail"):
        table.add_column(col.strip(), justify="left" if col == "judge" else "right",
                         overflow="fold")
    for s in scores:
        table.add_row(data(s.judge), *_orders(s, k), pct(s.net.accuracy), _ci(s.net),
                      pct(_cons(s, unparsed)), pct(s.first_shown_rate),
                      bounds_cell(*s.first_shown_ci), str(s.parse_failures))
    return table


def recorded_table(subset: str, scores: list[RecordingScore], *,
                   unparsed: str = "excluded") -> Table:
    """One subset's recordings with every rule, one row per (judge, strategy) (``--detail``;
    orders and ``unparsed`` as in :func:`position_table`); fits 100 columns."""
    n = max(s.n for s in scores)
    table = Table(title=data(f"{subset}: {n} pairs"), title_justify="left", box=None,
                  pad_edge=False, padding=(0, 1), header_style="bold")
    k, order_columns = _order_columns(scores)
    for col in ("judge", "strategy", *order_columns, "both", "95% CI", "p", "strict", "agree",
                "cov", "cons", "1st", "fail"):
        table.add_column(col, justify="left" if col in ("judge", "strategy") else "right",
                         overflow="fold")
    for s in scores:
        table.add_row(data(s.judge), data(s.strategy or "-"), *_orders(s, k),
                      pct(s.net.accuracy), _ci(s.net), p_cell(s.vs_order1.get("net")),
                      pct(s.strict.accuracy), pct(s.agree_only.accuracy),
                      pct(s.agree_only.coverage), pct(_cons(s, unparsed)),
                      pct(s.first_shown_rate), str(s.parse_failures))
    return table


RECORDED_CAPTION = (
    "o1, o2: accuracy in each order (% of parsed verdicts). both: both orders, net rule "
    "(+1 per order for a response; a net tie is right only on a tie label), 95% percentile "
    "bootstrap CI (2,000 resamples, seed 0), p: sign test vs o1. strict: right in both "
    "orders. agree: accuracy where the orders agree; cov: share of pairs where they do. cons: "
    "orders agree. 1st: decisive verdicts for the output shown first. "
    "fail: unparsed verdicts (never scored). CIs of every figure and all sign tests: "
    "summary.json (--out).")


def jury_table(j: JuryScore) -> Table:
    """A recorded jury against its judges (both %: both-orders net-rule accuracy; o1 %: the
    first order alone, for the jury a vote of first-order verdicts)."""
    weighted = len(set(j.weights)) > 1
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    for col in ("", "both %", "95% CI", "o1 %", "vs best p", "differs from jury"):
        table.add_column(col, justify="left" if not col else "right", overflow="fold")
    table.add_row("jury", pct(j.jury.accuracy), _ci(j.jury), pct(j.jury_order1.accuracy),
                  p_cell(j.vs_best), "")
    for judge in j.judges:
        a, rate = j.judge_net[judge], j.disagreement[judge]
        name = judge + (" (best)" if judge == j.best_judge else "") + (
            f" w={j.weights[j.judges.index(judge)]:g}" if weighted else "")
        table.add_row(data(name), pct(a.accuracy), _ci(a), pct(j.judge_order1[judge].accuracy),
                      "" if judge == j.best_judge else "", f"{pct(rate[0])}% of {rate[1]}")
    table.add_row("mean judge", pct(j.mean_judge), "", "", "", "")
    return table


def jury_lines(j: JuryScore) -> list[str]:
    """Agreement of the jury's judges, in words."""
    lines = []
    if j.alpha is not None:
        low, high = j.alpha.confidence_interval
        lines.append(f"  judges' agreement (Krippendorff's alpha, nominal, on decisions): "
                     f"{j.alpha.alpha:.3f} [{low:.3f}, {high:.3f}], {j.alpha.n_units} pairs")
    m, names = j.pairwise.matrix, j.pairwise.raters
    pairs = [f"{names[a]}-{names[b]} {m[a, b]:.2f}" for a in range(len(names))
             for b in range(a + 1, len(names))]
    lines.append("  pairwise alpha: " + ", ".join(pairs))
    gap = j.jury.accuracy - j.judge_net[j.best_judge].accuracy
    lines.append(f"  disagrees with the jury most: {j.most_disagreeing} "
                 f"({pct(j.disagreement[j.most_disagreeing][0])}%); jury vs best judge "
                 f"({j.best_judge}): {100 * gap:+.1f} points, sign test p = {p_cell(j.vs_best)}")
    return lines


def parse_weights(text: str | None, judges: set[str]) -> dict[str, float] | None:
    """``--weights GPT-4=3,LLaMA2=0.5`` as judge -> weight (judges not named weigh 1).

    Raises:
        ConfigError: a part without ``=``, an unknown judge, a repeated judge, a weight that
            is not a finite number >= 0, or every judge at weight 0.
    """
    if text is None:
        return None
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, eq, value = part.strip().rpartition("=")
        name = name.strip()
        if not eq or not name:
            raise ConfigError(f"--weights: {part.strip()!r} is not judge=weight (e.g. "
                              f"--weights GPT-4=3,LLaMA2=1)")
        if name not in judges:
            raise ConfigError(f"--weights: no judge {name!r} in these recordings"
                              f"{did_you_mean(name, judges)} (judges: "
                              f"{', '.join(sorted(judges))})")
        if name in weights:
            raise ConfigError(f"--weights: judge {name!r} is given twice")
        try:
            w = float(value)
        except ValueError:
            w = math.nan
        if not math.isfinite(w) or w < 0:
            raise ConfigError(f"--weights: {name}'s weight must be a finite number >= 0, got "
                              f"{value.strip()!r}")
        weights[name] = w
    if not any(weights.get(j, 1.0) for j in judges):
        raise ConfigError("--weights: every judge has weight 0; at least one must count")
    return weights


#: Per-item fields left out of summary.json (the items' own data, not figures).
_PER_ITEM = ("net_decisions", "net_credits", "order_credits", "decisions")


def _jsonable(score: RecordingScore | JuryScore) -> dict:
    """A score as a JSON-able dict, without its per-item fields (dropped before
    ``asdict``, which would copy them item by item)."""
    empty = {f.name: type(getattr(score, f.name))() for f in fields(score)
             if f.name in _PER_ITEM}
    out = asdict(replace(score, **empty))
    for key in empty:
        out.pop(key)
    return out


def _shown(recordings: Sequence[Recording]) -> dict[str, list[Recording]]:
    """Set -> the recordings of its default strategy, by judge (the default tables)."""
    strategies: dict[str, set[str]] = {}
    for r in recordings:
        strategies.setdefault(r.subset, set()).add(r.strategy)
    chosen = {subset: default_strategy(names) for subset, names in strategies.items()}
    shown: dict[str, list[Recording]] = {subset: [] for subset in chosen}
    for r in recordings:
        if r.strategy == chosen[r.subset]:
            shown[r.subset].append(r)
    return {subset: sorted(recs, key=lambda r: r.judge) for subset, recs in shown.items()}


def _reproduction(recordings: Sequence[Recording]) -> None:
    """The line saying whether LLMBar's own statistics.json were reproduced (files that have
    one), and the files that differ."""
    from ..recorded.llmbar_stats import llmbar_statistics

    checked = [(r, stats.mismatches(r.reference)) for r in recordings
               if r.reference is not None and (stats := llmbar_statistics(r)) is not None]
    if not checked:
        return
    bad = [(r, keys) for r, keys in checked if keys]
    console.print(f"LLMBar's own statistics.json (correct_False, correct_True, "
                  f"correct_average, correct_both, equal) reproduced exactly for "
                  f"{len(checked) - len(bad)} of {len(checked)} files.", markup=False)
    for r, keys in bad[:20]:
        console.print(data(f"  differs: {r.subset} {r.judge} {r.strategy}: {', '.join(keys)}"))


def _unlabelled_note(scores: Sequence[RecordingScore], recs: Sequence[Recording]) -> None:
    """Under a table: why accuracies are missing when items have no label, and then how often
    its judges agree (their both-orders net decisions), per strategy."""
    from ..recorded.jury import jury_groups, judges_agreement

    unlabelled = [s for s in scores if s.n_labelled < s.n]
    if not unlabelled:
        return
    none = all(s.n_labelled == 0 for s in unlabelled)
    console.print(data(
        ("no label on any pair: accuracies not shown (—); " if none else
         f"{len(unlabelled)} rows have unlabelled pairs: accuracies count only the labelled "
         f"ones; ") + "cons, 1st and fail count every pair."))
    for (_, strategy), group in jury_groups(recs).items():
        pairs = ", ".join(f"{a}~{b} {pct(agree / n) if n else '—'} (n {n})"
                          for a, b, agree, n in judges_agreement(group))
        console.print(data(f"judges' net decisions agree{f' ({strategy})' if strategy else ''}"
                           f": {pairs}"))


def _print_juries(juries: Sequence[JuryScore]) -> None:
    for j in juries:
        console.print()
        console.print(data(f"jury on {j.subset}, {j.strategy or '-'}: {len(j.judges)} judges, "
                           f"{j.n} pairs" + (" (weighted)" if len(set(j.weights)) > 1 else
                                             " (unweighted)"), style="italic"))
        print_table(jury_table(j))
        for line in jury_lines(j):
            console.print(data(line))


def print_recorded(recordings: list[Recording], *, source: str, out: Path | None,
                   weights: str | None = None, pool: bool = True,
                   detail: bool = False, unparsed: str = "excluded") -> list[RecordingScore]:
    """Score recorded judgments and print them: the legend first, then per set the default
    strategy's position-bias table (module docstring), LLMBar's statistics checked; with
    ``detail`` every strategy's every rule per set and the jury tables where several judges
    judged the same items; with ``out`` summary.json of every recording and jury.

    Returns:
        The scores computed: every recording's (and pooled set's) with ``detail`` or ``out``,
        else those of the rows shown.
    """
    from ..recorded.pool import pool_subsets
    from ..recorded.scoring import score_recording
    from ..rundir import write_json_atomic

    weight_map = parse_weights(weights, {r.judge for r in recordings})
    every = recordings + (pool_subsets(recordings) if pool else [])
    everything = detail or out is not None
    shown = _shown(every)
    n_shown = sum(map(len, shown.values()))
    scored = every if everything else [r for recs in shown.values() for r in recs]
    # the default table shows two CIs a row: only those are computed (--detail, --out: all)
    by_key = {r.key: score_recording(r, intervals="all" if everything else "position")
              for r in scored}
    juries: list[JuryScore] = []
    if everything:  # the juries import Krippendorff's alpha (scipy.sparse): only when shown
        from ..recorded.jury import jury_groups, score_jury

        # a jury is scored on labels: a group with an unlabelled item has none (its judges'
        # agreement is under its table)
        juries = [score_jury(g, weight_map) for g in jury_groups(every).values()
                  if all(i.label is not None for r in g for i in r.items)]
    console.print((RECORDED_CAPTION if detail else POSITION_CAPTION) + " "
                  + cons_caption(unparsed), markup=False)
    console.print(safe_text(f"{source}: {len(recordings)} recorded (subset, judge, strategy) "
                            f"sets, rescored with no model call"), markup=False)
    if detail:
        by_subset: dict[str, list[RecordingScore]] = {}
        for r in every:
            by_subset.setdefault(r.subset, []).append(by_key[r.key])
        for subset, group in by_subset.items():
            console.print()
            print_table(recorded_table(subset, sorted(group, key=lambda s: (s.strategy,
                                                                             s.judge)),
                                       unparsed=unparsed), key_columns=2)
            _unlabelled_note(group, [r for r in every if r.subset == subset])
    else:
        console.print(f"Shown: per set, one row per judge for its default strategy (its only "
                      f"one, else {' or '.join(DEFAULT_STRATEGIES)}, else the first by name): "
                      f"{n_shown} of {len(every)} rows"
                      + (" (pooled sets included)" if len(every) > len(recordings) else "")
                      + ". Every strategy, the other rules and the juries: --detail.",
                      markup=False)
        for subset, recs in shown.items():
            print_table(position_table(subset, recs[0].strategy, [by_key[r.key] for r in recs],
                                       unparsed=unparsed))
            _unlabelled_note([by_key[r.key] for r in recs], recs)
    _reproduction(every)
    if detail:
        _print_juries(juries)
    scores = [by_key[r.key] for r in scored]
    if out is not None:
        _output_folder(out)
        summary = {"source": source, "n_recordings": len(recordings),
                   "scores": [{**_jsonable(s), "llmbar_written": s.llmbar.as_written()
                               if s.llmbar else None} for s in scores],
                   "juries": [{**_jsonable(j), "pairwise": {
                       "raters": list(j.pairwise.raters),
                       "matrix": j.pairwise.matrix.tolist(),
                       "n_common": j.pairwise.n_common.tolist()}} for j in juries]}
        write_json_atomic(out / "summary.json", summary)
        console.print(safe_text(f"written: {out / 'summary.json'}"), markup=False)
    return scores
