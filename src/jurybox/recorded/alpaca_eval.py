"""AlpacaEval's recorded annotations (Dubois et al. 2024, arXiv 2404.04475; github
tatsu-lab/alpaca_eval, data CC BY-NC 4.0), read as ranking
:class:`~jurybox.ranking.comparisons.Comparisons`: every system against the baseline.

AlpacaEval's ``results/`` folder holds one folder per system: ``<system>/model_outputs.json``
(a JSON list of ``instruction``, ``output``, ``generator``) and, per annotator,
``<system>/<annotator>/annotations.json``: a JSON list of records with ``instruction``,
``output_1`` (the baseline's output), ``generator_1`` (the baseline), ``output_2`` (the
system's output), ``generator_2`` and ``preference``: 1 the baseline won, 2 the system won,
values in between for the weighted annotators (``weighted_alpaca_eval_gpt4_turbo``), 1.5 or
0 a tie (0 is AlpacaEval's old tie code: ``metrics/helpers.py``, ``describe_head2head``
replaces 0 by 1.5), null a failed annotation.

Each record becomes a :class:`~jurybox.ranking.comparisons.Comparison` with ``a`` = the
system (``output_2``), ``b`` = the baseline (``output_1``), ``outcome = preference - 1``
(the share to the system, as AlpacaEval's ``glm_winrate._get_featurized_data``), lengths
in characters of the two outputs (``len`` of the text, as pandas' ``str.len``). The system's
name is its folder's (AlpacaEval's leaderboard and notebooks do the same; ``generator_2``
is not always the folder's name). A null (or NaN) preference is a failed annotation: left
out and counted in :attr:`AlpacaEvalResults.failed`, never a tie. The baseline's own folder
(the baseline against itself) is left out.

Prompt ids are the instruction's position (0-based, as text) in the baseline's
``model_outputs.json`` when the folder has it (AlpacaEval's 805 instructions in their order),
else in first-seen order over the systems' files (sorted by system name).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..datasets.validate import read_bounded
from ..errors import DataError, did_you_mean
from ..ranking.comparisons import Comparison, Comparisons

__all__ = ["AlpacaEvalResults", "read_alpaca_eval", "annotators_of", "DEFAULT_ANNOTATOR",
           "MAX_FILE_BYTES"]

#: The annotator preferred when several are equally common (AlpacaEval 2.0's default).
DEFAULT_ANNOTATOR = "weighted_alpaca_eval_gpt4_turbo"
#: A JSON file larger than this is refused (AlpacaEval's largest is about 30 MB).
MAX_FILE_BYTES = 512 * 1024 * 1024
_TEXT_FIELDS = ("instruction", "output_1", "output_2", "generator_1")


@dataclass(frozen=True)
class AlpacaEvalResults:
    """One annotator's judgments of every system in a ``results/`` folder.

    Attributes:
        comparisons: every system (``a``) against ``baseline`` (``b``), one row per annotated
            instruction; ``outcome`` the share to the system, lengths in characters.
        annotator: the annotator folder read.
        baseline: the baseline (``generator_1`` of every file).
        failed: per system, the annotations left out because their preference is null
            (systems with none are absent).
        skipped: systems (folders) without this annotator's annotations.json, sorted.
    """

    comparisons: Comparisons
    annotator: str
    baseline: str
    failed: dict[str, int]
    skipped: tuple[str, ...]


def annotators_of(folder: str | Path) -> Counter[str]:
    """How many systems of the ``results/`` ``folder`` have each annotator's annotations.json.

    Raises:
        DataError: ``folder`` is not a folder.
    """
    root = Path(folder)
    if not root.is_dir():
        raise DataError(root, "not a folder; give AlpacaEval's results/ folder "
                        "(<system>/<annotator>/annotations.json)")
    return Counter(p.parent.name for p in root.glob("*/*/annotations.json") if p.is_file())


def _load(path: Path, what: str) -> list[object]:
    data = read_bounded(path, MAX_FILE_BYTES, what)
    try:
        records = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise DataError(path, f"not a JSON file ({str(exc)[:80]})") from None
    if not isinstance(records, list):
        raise DataError(path, f"must be a JSON list of records ({what}), got "
                        f"{type(records).__name__}")
    return records


def _prompt_order(root: Path, baseline_folder: str | None) -> dict[str, int]:
    if baseline_folder is None:
        return {}
    path = root / baseline_folder / "model_outputs.json"
    if not path.is_file():
        return {}
    order: dict[str, int] = {}
    for i, rec in enumerate(_load(path, "model outputs")):
        if not isinstance(rec, dict):
            raise DataError(path, f"record {i} must be an object, got {type(rec).__name__}",
                            field=f"[{i}]")
        text = rec.get("instruction")
        if not isinstance(text, str):
            raise DataError(path, f"record {i}: 'instruction' must be a string, got "
                            f"{type(text).__name__}", field=f"[{i}].instruction")
        order.setdefault(text, len(order))
    return order


def _preference(path: Path, i: int, value: object) -> float | None:
    """The share to the system, or None for a failed annotation."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            value == 0 or 1 <= value <= 2):
        raise DataError(path, f"record {i}: a preference is a number in [1, 2] (0 an old tie, "
                        f"null a failed annotation), got {value!r:.40}", field=f"[{i}].preference")
    return 0.5 if value == 0 else float(value) - 1.0


def _baseline(files: dict[str, Path]) -> str | None:
    """``generator_1`` of the first record that has one (files in order), else None."""
    for path in files.values():
        for rec in _load(path, "annotations"):
            if isinstance(rec, dict) and isinstance(rec.get("generator_1"), str):
                return str(rec["generator_1"])
    return None


def read_alpaca_eval(folder: str | Path, *, annotator: str | None = None,
                     texts: bool = True) -> AlpacaEvalResults:
    """Read AlpacaEval's ``results/`` ``folder`` (one folder per system).

    Args:
        folder: the ``results/`` folder.
        annotator: the annotator folder to read; None: the one most systems have
            (:data:`DEFAULT_ANNOTATOR` among equals, else the first by name).
        texts: keep the outputs' texts in the comparisons (False saves memory; the lengths
            are kept either way). Identical texts share one string.

    Returns:
        The comparisons, the baseline, failed annotations per system, skipped systems.

    Raises:
        DataError: not a folder, no annotations.json, an unknown annotator (with the closest
            name); a file that is not JSON or not a list; a record that is not an object, or
            without a string instruction/output_1/output_2/generator_1, a preference that is
            not null, 0 or a number in [1, 2], a generator_1 other than the other files'
            baseline; no annotation left (file, record index, field).
    """
    root = Path(folder)
    counts = annotators_of(root)
    if not counts:
        raise DataError(root, "no <system>/<annotator>/annotations.json here (expected "
                        "AlpacaEval's results/ folder)")
    if annotator is None:
        most = max(counts.values())
        tops = sorted(a for a, c in counts.items() if c == most)
        annotator = DEFAULT_ANNOTATOR if DEFAULT_ANNOTATOR in tops else tops[0]
    elif annotator not in counts:
        raise DataError(root, f"no system has annotator {annotator!r}"
                        f"{did_you_mean(annotator, counts)}; annotators here: "
                        f"{', '.join(sorted(counts))}")
    systems = sorted(p.name for p in root.iterdir() if p.is_dir())
    files = {s: root / s / annotator / "annotations.json" for s in systems}
    skipped = tuple(s for s, f in files.items() if not f.is_file())
    files = {s: f for s, f in files.items() if s not in skipped}

    baseline = _baseline(files)
    order = _prompt_order(root, baseline if baseline in systems else None)
    shared: dict[str, str] = {}  # one string per distinct text

    def keep(text: str) -> str | None:
        return shared.setdefault(text, text) if texts else None

    rows: list[Comparison] = []
    failed: dict[str, int] = {}
    for system, path in files.items():
        if system == baseline:
            continue
        for i, rec in enumerate(_load(path, "annotations")):
            if not isinstance(rec, dict):
                raise DataError(path, f"record {i} must be an object, got "
                                f"{type(rec).__name__}", field=f"[{i}]")
            for key in _TEXT_FIELDS:
                if not isinstance(rec.get(key), str):
                    what = "missing" if key not in rec else type(rec[key]).__name__
                    raise DataError(path, f"record {i}: {key!r} must be a string, got {what}",
                                    field=f"[{i}].{key}")
            if rec["generator_1"] != baseline:
                raise DataError(path, f"record {i}: the baseline is {rec['generator_1']!r}; "
                                f"the other annotations' is {baseline!r} (one baseline per "
                                f"folder)", field=f"[{i}].generator_1")
            if "preference" not in rec:
                raise DataError(path, f"record {i} has no 'preference'",
                                field=f"[{i}].preference")
            outcome = _preference(path, i, rec["preference"])
            if outcome is None:
                failed[system] = failed.get(system, 0) + 1
                continue
            prompt = str(order.setdefault(rec["instruction"], len(order)))
            out_2, out_1 = rec["output_2"], rec["output_1"]
            rows.append(Comparison(prompt, system, baseline, outcome,  # type: ignore[arg-type]
                                   length_a=len(out_2), length_b=len(out_1),
                                   text_a=keep(out_2), text_b=keep(out_1)))
    if not rows:
        raise DataError(root, f"no annotation of {annotator!r} to read (every preference "
                        f"null, or only the baseline's own folder)")
    return AlpacaEvalResults(Comparisons.of(rows), annotator, str(baseline), failed, skipped)
