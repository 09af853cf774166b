"""Tiny LLMBar result.json trees for the recorded tests."""

from __future__ import annotations

import json
from pathlib import Path


def judgment(winner, text="Output (a)"):
    return {"completion": [text, "stop"], "winner": winner}


def round_(w_false, w_true):
    return {"swap = False": judgment(w_false), "swap = True": judgment(w_true)}


def record(label, *elements):
    results = elements[0] if len(elements) == 1 and isinstance(elements[0], str) \
        else list(elements)
    return {"input": "q", "output_1": "x", "output_2": "y", "label": label,
            "results": results}


def write_result(root: Path, records, *, subset="LLMBar/Natural", judge="GPT-4",
                 strategy="Vanilla", statistics=None) -> Path:
    folder = root / "Dataset" / subset / "evaluators" / judge / strategy
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "result.json"
    path.write_text(records if isinstance(records, str) else json.dumps(records))
    if statistics is not None:
        (folder / "statistics.json").write_text(json.dumps(statistics))
    return path


def write_recorded(folder: Path, verdicts: dict, labels: list) -> Path:
    """A generic recorded file ``folder/rec.jsonl`` of one (subset S, strategy V): judge ->
    per item its order verdicts, and each item's label."""
    path = folder / "rec.jsonl"
    path.write_text("".join(json.dumps({
        "id": f"i{k}", "label": labels[k], "subset": "S", "strategy": "V",
        "judges": {j: list(vs[k]) for j, vs in verdicts.items()}}) + "\n"
        for k in range(len(labels))))
    return path
