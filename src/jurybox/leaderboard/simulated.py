"""Three made-up systems answering TruthfulQA questions (bundled), for trying ``rank`` with
the simulated judge: ``truthful`` gives one of the dataset's correct answers to every
question, ``sometimes`` to every other one (a wrong answer otherwise), ``misled`` a wrong one
to every question. Each line says which systems are ``correct``, so the simulated judge, which
is told the gold, judges the pairs with one right answer as it judges labelled items (and the
pairs of two right or two wrong answers as unlabelled: noise). ``examples/systems.jsonl`` is
``truthfulqa_systems(24)``."""

from __future__ import annotations

from typing import Any

__all__ = ["truthfulqa_systems"]


def truthfulqa_systems(limit: int = 24) -> list[dict[str, Any]]:
    """The first ``limit`` TruthfulQA questions with three systems' answers, as wide
    systems' outputs lines (:mod:`.outputs`)."""
    from ..datasets import ListwiseItem, load_dataset

    rows = []
    for n, item in enumerate(load_dataset("truthfulqa").items[:limit]):
        assert isinstance(item, ListwiseItem)  # TruthfulQA is listwise
        right = min(item.gold)
        wrong = [i for i in range(len(item.candidates)) if i not in item.gold]
        outputs = {"truthful": item.candidates[right],
                   "sometimes": item.candidates[right if n % 2 == 0 else wrong[0]],
                   "misled": item.candidates[wrong[-1]]}
        rows.append({"id": item.item_id, "prompt": item.prompt, "outputs": outputs,
                     "correct": [s for s, text in outputs.items()
                                 if text == item.candidates[right]]})
    return rows
