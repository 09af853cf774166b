"""The bundled real-model listwise recording (examples/listwise-smollm2.jsonl: the local
SmolLM2-135M-Instruct judge on 60 TruthfulQA items, PCF with 4 orders, exported with
`jurybox export RUN --format recorded`): jurybox's figures against counts made here straight
from the file's lines."""

import json
from pathlib import Path

import pytest

from jurybox.recorded.listwise import read_listwise_jsonl
from jurybox.recorded.listwise_scoring import score_listwise

FILE = Path(__file__).resolve().parents[2] / "examples" / "listwise-smollm2.jsonl"


def _lines(n_candidates):
    return [line for line in map(json.loads, FILE.read_text().splitlines())
            if line["candidates"] == n_candidates]


def test_the_real_judge_always_picks_the_first_shown_and_consensus_splits_the_vote():
    lines = _lines(4)
    (judge,) = lines[0]["judges"]
    picks = [(o, p) for line in lines
             for o, p in zip(line["orders"], line["judges"][judge]["picks"])]
    first = sum(o.index(p) == 0 for o, p in picks if p is not None)
    (score,) = [score_listwise(r) for r in read_listwise_jsonl(FILE)
                if r.n_candidates == 4]
    assert (score.n, len(picks)) == (len(lines), 4 * len(lines)) == (52, 208)
    assert first == 208 and score.first_slot == 1.0  # primacy on every pick: a real bias
    assert score.last_slot == 0.0 and score.flip_rate == 1.0
    # per order: the share of items whose pick in that order is the gold
    by_order = [sum(line["judges"][judge]["picks"][k] == line["label"] for line in lines)
                / len(lines) for k in range(4)]
    assert [a.accuracy for a in score.by_order] == pytest.approx(by_order)
    assert by_order == pytest.approx([11 / 52, 11 / 52, 12 / 52, 18 / 52])
    # every order picks a different candidate (each is shown first once): the top-set vote
    # ties all four, credit 1/4 on every item
    assert score.vote.accuracy == pytest.approx(0.25)
