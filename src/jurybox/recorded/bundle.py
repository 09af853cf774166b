"""The bundled LLMBar judgments (``jurybox score llmbar``), offline.

``jurybox/data/llmbar/`` holds every one of the 499 result.json files of LLMBar's release
(princeton-nlp/LLMBar at 900616b, MIT) trimmed to what scoring needs: per pair, the label and
the final round's verdict in each order, in the generic recorded format, gzip-compressed
(the judges' texts, the instructions and the outputs are dropped: 133 MB -> about 0.1 MB),
and LLMBar's own statistics.json of each file, so that the reproduction can be checked.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..datasets.registry import bundled_path
from .jsonl import read_recorded_jsonl
from .model import Recording

__all__ = ["BUNDLED_RECORDED", "load_bundled", "reference_key"]

#: Bundled recorded judgments: name -> (judgments file, statistics file) in jurybox/data.
BUNDLED_RECORDED = {"llmbar": ("llmbar/llmbar_judgments.jsonl.gz", "llmbar/statistics.json")}


def reference_key(rec: Recording) -> str:
    """``"<subset>|<judge>|<strategy>"``: a recording's key in the statistics file."""
    return f"{rec.subset}|{rec.judge}|{rec.strategy}"


def load_bundled(name: str = "llmbar") -> list[Recording]:
    """The bundled recordings, each with LLMBar's own statistics as its ``reference``.

    Raises:
        KeyError: an unknown name (see :data:`BUNDLED_RECORDED`).
    """
    judgments, stats = BUNDLED_RECORDED[name]
    recordings = read_recorded_jsonl(bundled_path(judgments))
    reference = json.loads(Path(bundled_path(stats)).read_text())
    return [Recording(r.subset, r.judge, r.strategy, r.orders, r.items, source=f"{name}: "
                      f"{r.subset}/evaluators/{r.judge}/{r.strategy}",
                      reference=reference.get(reference_key(r))) for r in recordings]
