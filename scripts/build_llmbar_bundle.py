"""Build jurybox's bundled LLMBar judgments from an extracted LLMBar release.

    python scripts/build_llmbar_bundle.py /path/to/LLMBar/Dataset

Writes src/jurybox/data/llmbar/llmbar_judgments.jsonl.gz (every result.json's final-round
verdicts in the generic recorded format, texts dropped) and statistics.json (LLMBar's own
statistics.json of each file, keyed "<subset>|<judge>|<strategy>").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jurybox.recorded.bundle import reference_key
from jurybox.recorded.jsonl import write_recorded_jsonl
from jurybox.recorded.llmbar import read_llmbar_tree

OUT = Path(__file__).resolve().parent.parent / "src" / "jurybox" / "data" / "llmbar"


def main(dataset: str) -> None:
    recordings = list(read_llmbar_tree(dataset, texts=False))
    OUT.mkdir(parents=True, exist_ok=True)
    lines = write_recorded_jsonl(recordings, OUT / "llmbar_judgments.jsonl.gz", texts=False)
    stats = {reference_key(r): r.reference for r in recordings if r.reference is not None}
    (OUT / "statistics.json").write_text(json.dumps(stats, indent=0, sort_keys=True) + "\n")
    print(f"{len(recordings)} recordings, {lines} lines, {len(stats)} statistics")


if __name__ == "__main__":
    main(sys.argv[1])
