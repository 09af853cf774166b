"""LLMBar's recorded judgments (Zeng et al. 2024, princeton-nlp/LLMBar, MIT), read as
:class:`~jurybox.recorded.model.Recording` s.

LLMBar's release holds ``Dataset/<group>/<subset>/evaluators/<judge>/<strategy>/result.json``
with a ``statistics.json`` beside it. A result.json is a JSON list, one record per pair:
``label`` (1 or 2: which of ``output_1``/``output_2`` is better) and ``results``: a list
(in some releases the Python repr of one, read with :func:`ast.literal_eval`, never
``eval``) whose dict elements are rounds, each with ``"swap = False"`` (output 1 shown
first) and ``"swap = True"`` (output 2 shown first), each holding ``winner`` ("1", "2",
already mapped back to the original outputs; null when the judge's text could not be parsed)
and, except for the Rating strategies, ``completion`` (``[text, finish_reason]``).

- The Swap and Swap_CoT strategies add a second round, again in both orders, when the first
  round's orders disagree; LLMBar's ``evaluate.py`` scores ``results[-1]``, so the LAST
  round's verdicts are the final ones (and are what is read here).
- Metrics, Reference and their Rating variants put the generated questions or reference
  output first in the list (lists of strings, no verdict); they are skipped. The data has
  them as ``[metrics, round]`` and ``[metrics, reference, round]``.

Item ids are the record's index in the file (0-based, as text): every judge and strategy of
one subset holds the pairs of its ``dataset.json`` in the same order.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

from ..datasets.validate import check_file
from ..errors import DataError
from .model import RecordedItem, Recording

__all__ = ["read_llmbar_result", "read_llmbar_tree", "find_llmbar_results", "subset_of",
           "GROUPS", "MAX_RESULT_BYTES"]

#: LLMBar's top-level groups under Dataset/.
GROUPS = ("LLMBar", "Processed", "CaseStudy")
#: A result.json larger than this is refused (the largest in the release is ~4 MB).
MAX_RESULT_BYTES = 512 * 1024 * 1024
_WINNERS = {"1": "A", "2": "B", None: None}
_LABELS = {"1": "A", "2": "B"}
_ORDERS = ("AB", "BA")
_SWAPS = ("swap = False", "swap = True")


def subset_of(result: Path) -> tuple[str, str, str]:
    """(subset, judge, strategy) of ``.../<subset>/evaluators/<judge>/<strategy>/result.json``.

    The subset is the path between ``Dataset/`` (or an LLMBar group folder: LLMBar,
    Processed, CaseStudy) and ``evaluators``, e.g. ``"LLMBar/Adversarial/GPTInst"``; without
    either, the folder holding ``evaluators``.

    Raises:
        DataError: the path does not end in ``evaluators/<judge>/<strategy>/result.json``.
    """
    parts = result.resolve().parts if not result.is_absolute() else result.parts
    if len(parts) < 5 or parts[-4] != "evaluators":
        raise DataError(result, "not in LLMBar's layout <subset>/evaluators/<judge>/"
                        "<strategy>/result.json (the judge and strategy are read from it)")
    above = parts[:-4]
    start = len(above) - 1
    for i in range(len(above) - 1, -1, -1):
        if above[i] == "Dataset":
            start = i + 1
            break
    else:
        for i, p in enumerate(above):
            if p in GROUPS:
                start = i
                break
    subset = "/".join(above[start:]) or above[-1]
    return subset, parts[-3], parts[-2]


def _winner(path: Path, index: int, field: str, value: object) -> str | None:
    if isinstance(value, str) or value is None:
        if value in _WINNERS:
            return _WINNERS[value]
    raise DataError(path, f"record {index}: a winner is '1', '2' or null (unparsed), got "
                    f"{value!r:.40}",
                    field=f"[{index}].{field}")


def _record(path: Path, index: int, rec: object) -> RecordedItem:
    where = f"[{index}]"
    if not isinstance(rec, dict):
        raise DataError(path, f"record {index} must be an object, got {type(rec).__name__}",
                        field=where)
    for key in ("label", "results"):
        if key not in rec:
            raise DataError(path, f"record {index} has no {key!r}", field=f"{where}.{key}")
    label = rec["label"]
    label_text = str(label) if isinstance(label, (int, str)) and not isinstance(label, bool) \
        else None
    if label_text not in _LABELS:
        raise DataError(path, f"record {index}: a label is 1 or 2, got {label!r:.40}",
                        field=f"{where}.label")
    results = rec["results"]
    if isinstance(results, str):
        try:
            results = ast.literal_eval(results)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise DataError(path, f"record {index}: a string 'results' must be the Python "
                            f"repr of a list", field=f"{where}.results") from None
    if not isinstance(results, list) or not results:
        raise DataError(path, f"record {index}: 'results' must be a non-empty list, got "
                        f"{type(results).__name__}", field=f"{where}.results")
    for k, element in enumerate(results):
        if not isinstance(element, (dict, list)):
            raise DataError(path, f"record {index}: each element of 'results' is a round "
                            f"(an object) or generated text (a list), got "
                            f"{type(element).__name__}", field=f"{where}.results[{k}]")
    last = len(results) - 1
    final = results[last]
    if not isinstance(final, dict):
        raise DataError(path, f"record {index}: the last element of 'results' must be a "
                        f"round with 'swap = False' and 'swap = True'",
                        field=f"{where}.results[{last}]")
    verdicts, texts = [], []
    for swap in _SWAPS:
        field = f"results[{last}].{swap}"
        judgment = final.get(swap)
        if not isinstance(judgment, dict) or "winner" not in judgment:
            raise DataError(path, f"record {index}: missing, or without 'winner'",
                            field=f"{where}.{field}")
        verdicts.append(_winner(path, index, f"{field}.winner", judgment["winner"]))
        completion = judgment.get("completion")
        text = completion[0] if isinstance(completion, list) and completion else completion
        texts.append(text if isinstance(text, str) else None)
    return RecordedItem(str(index), _LABELS[label_text],  # type: ignore[arg-type]
                        tuple(verdicts), tuple(texts))  # type: ignore[arg-type]


def read_llmbar_result(path: str | Path, *, texts: bool = True) -> Recording:
    """One LLMBar result.json as a Recording (orders ``("AB", "BA")``: swap = False, True).

    Args:
        texts: keep the final round's completion texts (False saves memory).

    Returns:
        The recording; ``reference`` holds the ``statistics.json`` beside it when there is
        one (its values as written, e.g. ``"94 / 100 = 94.0%"``).

    Raises:
        DataError: not in LLMBar's layout, unreadable or not JSON, not a list of records, a
            record without label or results, a label other than 1/2, a winner other than
            "1"/"2"/null, a results string that is not a Python literal, no round at the end
            (file, record index, field).
    """
    path = check_file(Path(path))
    subset, judge, strategy = subset_of(path)
    size = path.stat().st_size
    if size > MAX_RESULT_BYTES:
        raise DataError(path, f"{size:,} bytes: larger than {MAX_RESULT_BYTES:,}")
    try:
        records = json.loads(path.read_bytes())
    except (ValueError, RecursionError) as exc:
        raise DataError(path, f"not a JSON file ({str(exc)[:80]})") from None
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror or exc})") from None
    if not isinstance(records, list) or not records:
        raise DataError(path, "must be a non-empty JSON list of records (LLMBar result.json)")
    items = tuple(_record(path, i, r) for i, r in enumerate(records))
    if not texts:
        items = tuple(RecordedItem(i.item_id, i.label, i.verdicts) for i in items)
    reference = None
    stats = path.with_name("statistics.json")
    if stats.is_file():
        try:
            reference = json.loads(stats.read_bytes())
        except (ValueError, OSError, RecursionError):
            reference = None
        if not isinstance(reference, dict):
            reference = None
    return Recording(subset, judge, strategy, _ORDERS, items, source=str(path),
                     reference=reference)


def find_llmbar_results(folder: str | Path) -> list[Path]:
    """Every ``result.json`` under ``folder`` in LLMBar's layout, sorted."""
    return sorted(p for p in Path(folder).rglob("result.json")
                  if p.is_file() and p.parent.parent.parent.name == "evaluators")


def read_llmbar_tree(folder: str | Path, *, texts: bool = False) -> Iterator[Recording]:
    """Every result.json under ``folder`` (a whole ``Dataset/``, a subset, a judge's folder).

    Raises:
        DataError: no result.json in LLMBar's layout there, or a bad file (as
            :func:`read_llmbar_result`).
    """
    found = find_llmbar_results(folder)
    if not found:
        raise DataError(folder, "no LLMBar result.json under this folder (expected "
                        "<subset>/evaluators/<judge>/<strategy>/result.json)")
    for path in found:
        yield read_llmbar_result(path, texts=texts)
