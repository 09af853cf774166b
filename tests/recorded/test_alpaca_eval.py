"""The reader of AlpacaEval's results/ folder, on tiny synthetic folders."""

from __future__ import annotations

import json

import pytest

from jurybox.errors import DataError
from jurybox.recorded.alpaca_eval import read_alpaca_eval

ANN = "weighted_alpaca_eval_gpt4_turbo"
PROMPTS = ["p0", "p1", "p2", "p3"]


def _write(root, system, records, annotator=ANN):
    folder = root / system / annotator
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "annotations.json").write_text(json.dumps(records), encoding="utf-8")


def _records(system, preferences, outputs=None):
    return [{"instruction": p, "output_1": "base answer " + p, "generator_1": "base",
             "output_2": (outputs or ["x" * (i + 1) for i in range(4)])[i],
             "generator_2": system, "preference": pref}
            for i, (p, pref) in enumerate(zip(PROMPTS, preferences))]


@pytest.fixture
def results(tmp_path):
    root = tmp_path / "results"
    (root / "base").mkdir(parents=True)
    (root / "base" / "model_outputs.json").write_text(json.dumps(
        [{"instruction": p, "output": "o", "generator": "base"} for p in reversed(PROMPTS)]))
    _write(root, "base", _records("base", [1.5] * 4))  # the baseline against itself: left out
    _write(root, "good", _records("good", [2, 2, 1.75, 1]))  # 3.75 / 4
    _write(root, "tie", _records("tie", [0, 1.5, None, 1]))  # 0 a tie, null failed
    _write(root, "other", _records("other", [2, 2, 2, 2]), annotator="alpaca_eval_gpt4")
    return root


def test_reads_win_rates_lengths_and_failed(results):
    r = read_alpaca_eval(results)
    c = r.comparisons
    assert (r.annotator, r.baseline, r.skipped) == (ANN, "base", ("other",))
    assert c.systems == ("base", "good", "tie")
    assert r.failed == {"tie": 1}
    good = c.outcome[c.a == c.system_index("good")]
    tie = c.outcome[c.a == c.system_index("tie")]
    assert good.mean() * 100 == pytest.approx(68.75)
    assert tie.tolist() == [0.5, 0.5, 0.0]  # 0 is a tie, the null one is gone
    assert set(c.b.tolist()) == {c.system_index("base")}
    # prompt ids: position in the baseline's model_outputs.json (written reversed)
    first = c.rows[0]
    assert (first.prompt, first.length_a, first.length_b) == ("3", 1, len("base answer p0"))
    assert first.text_a == "x" and first.text_b == "base answer p0"
    assert read_alpaca_eval(results, texts=False).comparisons.rows[0].text_a is None


def test_annotator_by_name(results):
    r = read_alpaca_eval(results, annotator="alpaca_eval_gpt4")
    assert r.comparisons.systems == ("base", "other")
    with pytest.raises(DataError, match="did you mean 'alpaca_eval_gpt4'"):
        read_alpaca_eval(results, annotator="alpaca_eval_gpt")


@pytest.mark.parametrize(("change", "field"), [
    ({"preference": 3}, "[1].preference"),
    ({"preference": "2"}, "[1].preference"),
    ({"output_2": None}, "[1].output_2"),
    ({"generator_1": "someone"}, "[1].generator_1"),
])
def test_bad_record_names_file_and_field(results, change, field):
    recs = _records("good", [2, 2, 2, 2])
    recs[1].update(change)
    _write(results, "good", recs)
    with pytest.raises(DataError) as info:
        read_alpaca_eval(results)
    err = info.value
    assert err.path.endswith("good/weighted_alpaca_eval_gpt4_turbo/annotations.json")
    assert err.field == field
    assert "\n" not in str(err)


def test_missing_preference_and_bad_json(results):
    recs = _records("good", [2, 2, 2, 2])
    del recs[0]["preference"]
    _write(results, "good", recs)
    with pytest.raises(DataError, match="no 'preference'"):
        read_alpaca_eval(results)
    (results / "good" / ANN / "annotations.json").write_text("{not json")
    with pytest.raises(DataError, match="not a JSON file"):
        read_alpaca_eval(results)


def test_not_a_results_folder(tmp_path):
    with pytest.raises(DataError, match="no <system>/<annotator>/annotations.json"):
        read_alpaca_eval(tmp_path)
    with pytest.raises(DataError, match="not a folder"):
        read_alpaca_eval(tmp_path / "missing")


def test_every_preference_null_is_an_error(tmp_path):
    _write(tmp_path, "m", _records("m", [None] * 4))
    with pytest.raises(DataError, match="no annotation"):
        read_alpaca_eval(tmp_path)
