"""Read an item's question and candidate texts back from a recorded prompt (when the dataset
file is gone or changed): the delimited blocks jurybox writes (:mod:`jurybox.protocols.prompts`,
:mod:`jurybox.protocols.pairwise_prompts`). The texts are as the judge saw them: escaped
(``[[`` in dataset text reads ``[ [``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..protocols.pairwise_prompts import RESPONSE_BLOCK
from ..protocols.prompts import CANDIDATE_BLOCK, QUESTION_BLOCK

__all__ = ["texts_from_prompt"]


def texts_from_prompt(messages: Sequence[tuple[str, str]], order: Sequence[int], task: str
                      ) -> tuple[str, tuple[str, ...]] | None:
    """(question, candidate texts by index) from a prompt that showed candidates in ``order``
    (label j showed candidate order[j]); None when the prompt does not hold every block."""
    user = "\n".join(content for role, content in messages if role == "user")
    question = QUESTION_BLOCK.search(user)
    blocks = (CANDIDATE_BLOCK if task == "listwise" else RESPONSE_BLOCK).findall(user)
    by_label = {label: text for label, _tag, text in blocks}
    labels = [chr(ord("A") + j) for j in range(len(order))]
    if question is None or not order or any(label not in by_label for label in labels):
        return None
    texts = [""] * len(order)
    for j, label in enumerate(labels):
        texts[order[j]] = by_label[label]
    return question.group(2), tuple(texts)
