"""The public verbs of jurybox, one layer above every package: each checks nothing itself and
delegates downward (no package below imports this module). ``jurybox.judge`` and the other
root names come from here (``jurybox/__init__.py`` re-exports them, loaded on first use).

- :func:`judge` / :func:`ajudge`: judge items given in memory or a file, with one judge
  (``model=``) or a jury (``jury=``).
- :func:`bench` / :func:`abench`: a bench run on a bundled or own dataset with gold
  (:func:`jurybox.compare.run_bench`).
- :func:`personalize`: rubric judges conditioned on raters' histories
  (:func:`jurybox.personalize.run_personalize`).
- :func:`agreement`: raters' agreement (:func:`jurybox.agreement.run_agreement`).
- :func:`score`: rescore a run's recorded answers with no model call
  (:func:`jurybox.compare.rescore_run`).
- :func:`rank`: rank systems (:func:`jurybox.leaderboard.run.rank`).
- :func:`selective`: selective judging with a guarantee of agreement, or a cascade, on
  recorded judgments (:func:`jurybox.recorded.selective.selective_sets`) or a run's verdicts.
- :func:`cascade`: a live cascade of judges, cheapest first
  (:func:`jurybox.judging.cascade.cascade_judge`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from .errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .agreement import AgreementReport
    from .compare import BenchConfig, BenchResult
    from .judging import Judgments
    from .jury import JuryResult
    from .personalize import PersonalizeConfig, PersonalizeResult
    from .leaderboard import RankResult
    from .recorded import Recording
    from .judging.cascade import LiveCascade
    from .recorded.selective import CascadeResult
    from .stats.selective import SelectiveResult
    from .run import RunHooks, RunOptions

__all__ = ["abench", "agreement", "ajudge", "apersonalize", "bench", "judge", "personalize",
           "cascade", "rank", "score", "selective"]


@overload
def judge(items: Iterable[Any] | str | Path, *, model: str | None = None, protocol: str = "pcf",
          out: str | Path | None = None, options: RunOptions | None = None,
          hooks: RunHooks | None = None, jury: None = None, **settings: Any) -> Judgments: ...


@overload
def judge(items: Iterable[Any] | str | Path, *, model: None = None, protocol: str = "pcf",
          out: str | Path | None = None, options: RunOptions | None = None,
          hooks: RunHooks | None = None, jury: Any, **settings: Any) -> JuryResult: ...


def judge(items: Iterable[Any] | str | Path, *, model: str | None = None, protocol: str = "pcf",
          out: str | Path | None = None, options: RunOptions | None = None,
          hooks: RunHooks | None = None, jury: Any = None, **settings: Any
          ) -> Judgments | JuryResult:
    """Judge candidates given in memory (or a file) and return typed per-item results.

    Args:
        items: dicts (``id``, ``prompt``, ``candidates``, optional ``gold``; ``item_id`` and
            ``question`` are accepted too), :class:`~jurybox.ListwiseItem` or PairwiseItem
            values, other dataclasses with those fields, or a file path / bundled name.
        model: the judge, required: ``provider/model`` (``openai/gpt-4o-mini``, ``vllm/...``),
            ``local`` (llama.cpp on this machine), or ``sim`` to try the tool (the simulated
            judge, which is told the gold answers).
        protocol: ``pcf`` (default), ``direct``, ``pairwise``, ``both-orders``, ``keyed``,
            ``apoc``.
        out: the run directory (default ``runs/judge-items-<model>-<hash>``, the same for the
            same items and settings, so a rerun is served from its cache and records).
        settings: any other :class:`JudgeConfig` field (``k``, ``criteria``, ``template``
            text, ``adaptive``, ``seed``, ``base_url``, ``sim``, ...). Several replicas of
            the judge's model, judged through as one endpoint pool: ``base_url`` as a list or
            tuple of URLs (or comma-separated), or ``endpoints`` the path of an endpoints
            file (:mod:`jurybox.providers.endpoints`), as ``--base-url`` and ``--endpoints``.
        jury: instead of ``model``, several judges as one panel: a list of model specs,
            dicts with a jury file's judge keys (``model``, ``name``, ``weight``, ``sim``,
            ...), :class:`~jurybox.jury.Juror` values, a :class:`~jurybox.jury.Jury`, or a
            jury file's path (:mod:`jurybox.jury.panel`). Each judge runs ``protocol`` on
            every item into ``out/judges/<name>``; the jury decides by weighted vote
            (pairwise) or the weighted mean of C_i (listwise).

    Returns:
        The judgments of exactly the items given (or selected by ``limit``), in their order;
        with ``jury``, a :class:`~jurybox.jury.JuryResult` (``records``: per item the jury's
        decision and each judge's; ``summary``: per-judge and jury statistics).

    One call at a time in a run directory: the call locks ``out`` before it writes the items
    into it and holds the lock until its result is read, and a second call into the same
    folder while the first runs, from another thread, another task or another process
    (two calls with the same items and no ``out`` share the default folder), is refused at
    once with RunDirBusyError naming the holder, as two processes always were. Refused rather
    than queued: the rule is the same in and across processes; a wait could never end where a
    blocking call on an event loop's thread waited for a task of that loop; and the same call
    once the first has finished is served from its records and cache, with no model call.

    Blocks, inside a running event loop too (Jupyter, an async handler: the engine then runs
    on a worker thread); :func:`ajudge` is the awaitable form, which does not block the loop.

    Raises:
        ConfigError, DataError: bad items or settings (before any model call); ``out`` holds
            a run of other items or other settings; RunDirBusyError (a ConfigError): another
            call or process judges into ``out``.
        ProviderError: the endpoint cannot be used.
        KeyboardInterrupt: Ctrl-C, after writing run.json with status "interrupted".
    """
    if jury is not None:
        from .jury.api import judge_with_jury

        _no_model_with_jury(model)
        return judge_with_jury(items, jury, protocol=protocol, out=out, options=options,
                               hooks=hooks, **settings)
    from .judging.call import judge as judge_one

    return judge_one(items, model=model, protocol=protocol, out=out, options=options,
                     hooks=hooks, **settings)


def _no_model_with_jury(model: str | None) -> None:
    if model is not None:
        raise ConfigError("give model= (one judge) or jury= (several), not both")


@overload
async def ajudge(items: Iterable[Any] | str | Path, *, model: str | None = None,
                 protocol: str = "pcf", out: str | Path | None = None,
                 options: RunOptions | None = None, hooks: RunHooks | None = None,
                 jury: None = None, **settings: Any) -> Judgments: ...


@overload
async def ajudge(items: Iterable[Any] | str | Path, *, model: None = None,
                 protocol: str = "pcf", out: str | Path | None = None,
                 options: RunOptions | None = None, hooks: RunHooks | None = None,
                 jury: Any, **settings: Any) -> JuryResult: ...


async def ajudge(items: Iterable[Any] | str | Path, *, model: str | None = None,
                 protocol: str = "pcf", out: str | Path | None = None,
                 options: RunOptions | None = None, hooks: RunHooks | None = None,
                 jury: Any = None, **settings: Any) -> Judgments | JuryResult:
    """:func:`judge` on the running event loop: ``await jurybox.ajudge(items, ...)`` (in a
    notebook, an async web handler).

    The judging (every model call, every hook) runs on the caller's loop without blocking
    it, so several ``ajudge`` calls with different ``out`` folders judge concurrently on one
    loop; writing the items, checking them, starting the endpoint and writing the summary,
    judgments and report run in the loop's default executor. Arguments, result and errors as
    :func:`judge`, plus asyncio.CancelledError when the awaiting task is cancelled (run.json
    then says "interrupted"; the same call again resumes).
    """
    if jury is not None:
        from .jury.api import ajudge_with_jury

        _no_model_with_jury(model)
        return await ajudge_with_jury(items, jury, protocol=protocol, out=out,
                                      options=options, hooks=hooks, **settings)
    from .judging.call import ajudge as ajudge_one

    return await ajudge_one(items, model=model, protocol=protocol, out=out, options=options,
                            hooks=hooks, **settings)


def bench(config: BenchConfig, out: str | Path, *, options: RunOptions | None = None,
          hooks: RunHooks | None = None) -> BenchResult:
    """Run (or resume) a bench: :func:`jurybox.compare.run_bench` (arguments, result and
    errors as there)."""
    from .compare import run_bench

    return run_bench(config, out, options=options, hooks=hooks)


async def abench(config: BenchConfig, out: str | Path, *, options: RunOptions | None = None,
                 hooks: RunHooks | None = None) -> BenchResult:
    """:func:`bench` on the running event loop: :func:`jurybox.compare.arun_bench`."""
    from .compare import arun_bench

    return await arun_bench(config, out, options=options, hooks=hooks)


def personalize(config: PersonalizeConfig, out: str | Path, *,
                options: RunOptions | None = None, hooks: RunHooks | None = None
                ) -> PersonalizeResult:
    """Personalized, aggregate and zero-shot rubric judges evaluated against each rater:
    :func:`jurybox.personalize.run_personalize` (arguments, result and errors as there)."""
    from .personalize import run_personalize

    return run_personalize(config, out, options=options, hooks=hooks)


async def apersonalize(config: PersonalizeConfig, out: str | Path, *,
                       options: RunOptions | None = None, hooks: RunHooks | None = None
                       ) -> PersonalizeResult:
    """:func:`personalize` on the running event loop:
    :func:`jurybox.personalize.arun_personalize`."""
    from .personalize import arun_personalize

    return await arun_personalize(config, out, options=options, hooks=hooks)


def agreement(ratings: str | Path, **options: Any) -> AgreementReport:
    """Raters' agreement (Krippendorff's alpha, coarse Jaccard) from a ratings file:
    :func:`jurybox.agreement.run_agreement` (options, result and errors as there)."""
    from .agreement import run_agreement

    return run_agreement(ratings, **options)


def score(run_dir: str | Path, out: str | Path, *, hooks: RunHooks | None = None
          ) -> BenchResult:
    """Re-decide a bench run from its recorded answers with the current parser, with no
    model call: :func:`jurybox.compare.rescore_run` (arguments, result and errors as
    there)."""
    from .compare import rescore_run

    return rescore_run(run_dir, out, hooks=hooks)


def rank(path: str | Path, *, baseline: str | None = None, model: str | None = None,
         out: str | Path | None = None, options: RunOptions | None = None,
         hooks: RunHooks | None = None, **settings: Any) -> RankResult:
    """Rank systems: win rates against ``baseline``, AlpacaEval's length-controlled win rate,
    Bradley-Terry scores with rank intervals, each with a prompt-bootstrap CI, and the
    judge's order effects per pair: :func:`jurybox.leaderboard.run.rank` (``path``: systems'
    outputs judged by ``model``, recorded judgments naming their systems, or an AlpacaEval
    ``results/`` folder; ``target=`` and ``calibration=``: only the verdicts a rule calibrated
    on labelled pairs accepts, :mod:`jurybox.leaderboard.selective`; other arguments, result
    and errors as there)."""
    from .leaderboard.run import rank as rank_path

    return rank_path(path, baseline=baseline, model=model, out=out, options=options,
                     hooks=hooks, **settings)


def selective(recordings: str | Path | list[Recording], *, target: float, delta: float = 0.1,
              calibration_share: float = 0.5, seed: int = 0, signal: str | None = None,
              cascade: list[str] | None = None, cascade_rule: str = "per-stage"
              ) -> list[SelectiveResult | CascadeResult]:
    """Selective judging with a guarantee of agreement (Trust or Escalate, Jung et al., ICLR
    2025), or a cascade of judges, on recorded judgments, with no model call: per (subset,
    strategy), a threshold calibrated on a seeded share of the items, applied to the rest.

    Args:
        recordings: a bundled name (``"llmbar"``), a recorded file or LLMBar folder
            (:func:`jurybox.recorded.read.read_recordings`), recordings already read, or a
            judge or bench run directory (its own verdicts, one rule per protocol, on their
            order agreement: :func:`jurybox.judging.selective.selective_run`).
        target: the agreement to guarantee, in (0, 1).
        delta: the probability that the guarantee fails, in (0, 1).
        calibration_share: the share of each set's items calibrated on, in (0, 1).
        seed: the calibration split's seed.
        signal: the confidence signal(s), as
            :func:`jurybox.recorded.selective.selective_sets` takes them.
        cascade: judges cheapest first, instead of ``signal``.
        cascade_rule: how a cascade is calibrated: ``"per-stage"``, ``"joint"`` or
            ``"auto"`` (:func:`jurybox.recorded.selective.cascade_split`).

    Returns:
        One result per (subset, strategy) that has what was asked for.

    Raises:
        ValueError, DataError, FileNotFoundError: as ``selective_sets``,
            ``read_recordings`` and ``selective_run``; ConfigError: a signal or cascade
            given for a run.
    """
    from .recorded.read import read_recordings
    from .recorded.selective import selective_sets

    if isinstance(recordings, (str, Path)) and (Path(recordings) / "run.json").is_file():
        if signal is not None or cascade is not None or cascade_rule != "per-stage":
            raise ConfigError("a run's verdicts have their own signals (order agreement, "
                              "token probability): give no signal, cascade or cascade rule")
        from .judging.selective import selective_run

        return list(selective_run(recordings, target=target, delta=delta,
                                  calibration_share=calibration_share, seed=seed))
    recs = (read_recordings(recordings) if isinstance(recordings, (str, Path))
            else list(recordings))
    return selective_sets(recs, target=target, delta=delta,
                          calibration_share=calibration_share, seed=seed, signal=signal,
                          cascade=cascade, cascade_rule=cascade_rule)[0]


def cascade(items: list[dict[str, Any]], models: list[str | dict[str, Any]], *, target: float,
            out: str | Path, delta: float = 0.1, calibration_share: float = 0.5,
            seed: int = 0, protocol: str = "pcf", options: RunOptions | None = None,
            **settings: Any) -> LiveCascade:
    """Judge ``items`` with judges cheapest first, each judging only what the earlier ones
    could not accept with a guarantee of ``target`` agreement (Trust or Escalate, section
    3.2): :func:`jurybox.judging.cascade.cascade_judge` (arguments, result and errors as
    there)."""
    from .judging.cascade import cascade_judge

    return cascade_judge(items, models, target=target, out=out, delta=delta,
                         calibration_share=calibration_share, seed=seed, protocol=protocol,
                         options=options, **settings)
