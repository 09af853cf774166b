"""The app's command group, loading each command's module only when that command is used:
``jurybox --help`` lists the commands from the one-line summaries below (imports none of
them); ``jurybox CMD ...`` imports CMD's module alone (a test keeps each summary equal to the
first paragraph of its command's docstring, which ``jurybox CMD --help`` shows)."""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Iterator, MutableMapping
from typing import Any, NamedTuple

from typer.core import TyperCommand

from ._common import JuryboxCommand, OneLineErrors
from ._examples import examples_epilog
from ._panels import ENV_EPILOG

__all__ = ["COMMANDS", "LazyCommands", "LazyGroup", "load_command"]


class _Entry(NamedTuple):
    module: str  # under jurybox.cli
    function: str
    summary: str  # the first paragraph of the function's docstring, on one line
    env_epilog: bool = False  # the help ends with the environment variables (ENV_EPILOG)


#: Every command, in the order ``jurybox --help`` lists them: a line ``NAME MODULE:FUNCTION``
#: (``+env``: its help ends with the environment variables), then its summary, indented.
_TABLE = """
demo  demo:demo
    Six parts on bundled data: (1) direct vs permutation-consensus (PCF, K=7) on 200 TruthfulQA
    items; (2) pairwise vs both-orders vs APOC on 100 JudgeBench pairs per split, both with the
    simulated, primacy-biased judge; (3) rescoring a real recorded judge (claude-3-haiku on
    JudgeBench) from its raw outputs; (4) how much SQuALITY's human raters agree (Krippendorff's
    alpha, coarse Jaccard); (5) zero-shot, aggregate and personalized rubric judges of SQuALITY
    summaries, evaluated against each rater (simulated judge); (6) ranking three made-up systems
    on 24 TruthfulQA questions against a baseline: win rates and Bradley-Terry scores with CIs
    (simulated judge, both orders).
bench  bench:bench  +env
    Judge a dataset with several protocols and compare them with paired statistics: listwise
    (best-of-N: direct vs permutation consensus) or pairwise (JudgeBench: one call, both orders,
    keyed judge, APOC).
judge  judge:judge  +env
    Judge candidates that have no gold: per item the winner(s), every candidate's C_i and its
    components, how often the permutations agreed with the pick, and flags (flipped, failed).
    Writes RUN/judgments.jsonl and RUN/judgments.csv; gold, where given, adds accuracy.
score  score:score
    Score judge outputs that already exist, with no model calls: rerun a run's decisions from
    its calls.jsonl with the current parser, score recorded JudgeBench outputs, or rescore
    recorded pairwise judgments (LLMBar, the generic recorded format): per set the
    position-bias figures of one strategy, or with --detail every strategy, every rule and a
    jury table where several judges judged the same items.
rank  rank:rank  +env
    Rank systems against a baseline: per system the win rate (ties half), AlpacaEval's
    length-controlled win rate, the Bradley-Terry score (Elo points, baseline 1000) with its
    rank interval and the style-controlled score, each with a 95% CI from resampling prompts,
    and per pair of systems the judge's order-flip and first-shown rates. Judges systems'
    outputs in pairs (any pairwise protocol, through the judge's engine: cache, resume, batch,
    dry run), or reads recorded judgments with no model call. Writes RUN/summary.json,
    RUN/leaderboard.csv and RUN/report.html.
agreement  agreement:agreement
    How much raters agree: Krippendorff's alpha with bootstrap CIs (fine agreement) and Jaccard
    of above-median item sets (coarse agreement), per dimension and domain, with rater profiles
    and pairwise alpha in summary.json and plots as PNG.
personalize  personalize:personalize  +env
    Rubric judges conditioned on nobody (zero-shot), on other raters (aggregate) or on the
    target rater's own ratings (personalized), evaluated against each rater: alpha, exact
    agreement, MAE and coverage with CIs, a paired test of personalized vs aggregate, and how
    judge reasoning tracks rater agreement.
report  report:report
    Write RUN/report.html: one self-contained page (no network) with the summary table, the
    run's totals (calls, cache hits, retries, re-asks, failures, tokens, cost) and warnings,
    accuracy against the number of permutations used, position effects, flip rates, length bias,
    agreement or alignment, and an item browser with filters. Every judging command writes it at
    the end; this rewrites it (say after an interrupted run) with no model calls. A report
    already written by this jurybox from the run's files as they are now is left as it is
    (--force rewrites it). Given a folder of runs, it writes each run's report that is missing
    or out of date, then FOLDER/index.html: one page listing every run (kind, data, judge,
    status, results, calls, cost) with a link to each report.
runs  runs:runs
    The runs in a folder, one row each: kind, data, judge (simulated said plainly), status
    (complete, partial, interrupted, failed, killed, running, or unreadable with the reason),
    the headline results, model calls, USD when priced, and when it started. Reads run.json and
    summary.json only (no model calls); `jurybox report FOLDER` writes the same table as
    FOLDER/index.html, linking each run's report.
show  show:show
    One item: its question and candidates, every order shown, scores, rankings and verdicts per
    call, each protocol's decision, the raw judge texts and any failures (from the recorded
    files; no model calls).
serve-sim  serve_sim:serve_sim
    Serve the simulated judge (OpenAI-compatible /v1/chat/completions, Anthropic's /v1/messages,
    and both providers' batch APIs) on 127.0.0.1.
serve-local  serve_local:serve_local
    Serve a GGUF judge with llama.cpp's OpenAI-compatible server on 127.0.0.1 (needs `pip
    install 'jurybox[local]'`). Point a run at it with `--model llamacpp/<alias> --base-url
    http://127.0.0.1:PORT/v1`, or let `--model local` start one for the run. It is ready after
    answering one real completion: a llama.cpp build for another CPU (SIGILL) is one error line
    with the command that rebuilds it.
cache  cache_cmd:cache
    Show where the response cache is and how many responses it holds, or clear it.
export  export:export
    Write a run's decisions (one row per item and protocol) and model calls (one row per call,
    with the prompt and the raw judge text) as flat tables for pandas or a spreadsheet. Lists
    (winners, C_i, prompt messages) are JSON text in csv and parquet.
batch  batch_cmd:batch
    A run's batches (``--batch``, ``--batch-files``): see them, cancel them, or carry batch
    files to a self-hosted server and back. A rerun of the run's command collects what its
    batches answered and sends nothing twice.
"""


def _entries(table: str) -> dict[str, _Entry]:
    """The commands of ``_TABLE``: name -> its entry."""
    out: dict[str, _Entry] = {}
    for block in re.split(r"\n(?=\S)", table.strip()):
        head, *summary = block.splitlines()
        name, where, *flags = head.split()
        module, _, function = where.partition(":")
        out[name] = _Entry(module, function, " ".join(line.strip() for line in summary),
                           "+env" in flags)
    return out


COMMANDS: dict[str, _Entry] = _entries(_TABLE)


def load_command(name: str) -> Any:
    """The click command ``name`` (importing its module), as ``app.command`` would build it.

    Raises:
        KeyError: no command is called ``name``.
    """
    from typer.main import get_command_from_info
    from typer.models import CommandInfo

    entry = COMMANDS[name]
    function = getattr(importlib.import_module(f"{__package__}.{entry.module}"), entry.function)
    epilog = examples_epilog(name, then=ENV_EPILOG if entry.env_epilog else "")
    info = CommandInfo(name=name, cls=JuryboxCommand, epilog=epilog, callback=function)
    return get_command_from_info(info, pretty_exceptions_short=True,
                                 rich_markup_mode="markdown")


class LazyCommands(MutableMapping[str, Any]):
    """The group's commands by name: each built on first access (:func:`load_command`)."""

    def __init__(self) -> None:
        self._loaded: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            if name not in COMMANDS:
                raise KeyError(name)
            self._loaded[name] = load_command(name)
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError("the commands of jurybox are fixed")

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(COMMANDS), **self._loaded})

    def __len__(self) -> int:
        return len({**dict.fromkeys(COMMANDS), **self._loaded})


class LazyGroup(OneLineErrors):
    """:class:`~._common.OneLineErrors` whose commands load on use; its own ``--help``
    lists them by their summaries, loading none."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy = LazyCommands()
        self.commands = self._lazy
        self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self._lazy)  # names only (typer's own walks the commands themselves)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing and cmd_name in COMMANDS and cmd_name not in self._lazy._loaded:
            return TyperCommand(name=cmd_name, help=COMMANDS[cmd_name].summary)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        if ctx.parent is None:  # the root's help: drawn without typer's renderer (_root_help)
            from ._root_help import print_root_help

            print_root_help(self, ctx, ((name, self._summary(name)) for name in self._lazy))
            return
        with self._summaries():
            super().format_help(ctx, formatter)

    def _summary(self, name: str) -> str:
        entry = COMMANDS.get(name)
        if entry is not None:
            return entry.summary
        command = self._lazy[name]  # added at run time (not in the table)
        return command.get_short_help_str(limit=300) if command is not None else ""

    @contextlib.contextmanager
    def _summaries(self) -> Iterator[None]:
        self._listing = True
        try:
            yield
        finally:
            self._listing = False
