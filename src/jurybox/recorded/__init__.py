"""Recorded judgments, rescored with no model call.

- :mod:`.model`: the generic model (:class:`Recording` of :class:`RecordedItem` s).
- Readers: :mod:`.jsonl` (the generic JSON-lines format, docs/recorded-format.md),
  :mod:`.listwise` (its listwise lines: a pick among n candidates per order),
  :mod:`.llmbar` (LLMBar's result.json files), :mod:`.judgebench` (JudgeBench outputs),
  :mod:`.bundle` (the bundled LLMBar judgments, ``jurybox score llmbar``).
- Scoring: :mod:`.scoring` (one recording), :mod:`.llmbar_stats` (LLMBar's own
  statistics), :mod:`.pool` (subsets pooled), :mod:`.jury` (several judges as one jury),
  :mod:`.listwise_scoring` (listwise recordings and their juries).
"""

from .model import LABELS, VERDICTS, RecordedItem, Recording

__all__ = ["LABELS", "VERDICTS", "RecordedItem", "Recording"]
