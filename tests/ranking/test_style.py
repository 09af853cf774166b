import math

import numpy as np
import pytest

from jurybox.ranking import (Comparison, Comparisons, fit_bradley_terry, markdown_counts,
                             style_controlled_bt, style_differences)


def test_markdown_counts():
    text = ("## Plan\n# Top\n#not a header\n\n1. first\n  2. second\n- dash\n* star\n+ plus\n"
            "-no space\n**bold** and __also__ and **not\nclosed**\n"
            "```python\n# comment, not a header\n- not a list\n**not bold**\n```\n")
    assert markdown_counts(text) == (2, 5, 2)
    assert markdown_counts("") == (0, 0, 0)


def test_normalised_differences_from_lengths_and_texts():
    rows = [Comparison("p1", "x", "y", 1.0, length_a=100, length_b=50),
            Comparison("p2", "x", "y", 0.0, length_a=0, length_b=0)]
    diff, names, notes = style_differences(Comparisons.of(rows))
    assert names == ("length",) and "length only" in notes[0]
    assert diff[:, 0].tolist() == pytest.approx([50 / 151, 0.0])
    texted = [Comparison("p1", "x", "y", 1.0, text_a="# a\n- b\n- c", text_b="plain",
                         length_a=999)]
    diff, names, notes = style_differences(Comparisons.of(texted))
    assert names == ("length", "headers", "lists", "bold") and notes == ()
    # the text's length (11) wins over a recorded one; headers 1 vs 0, lists 2 vs 0
    assert diff[0].tolist() == pytest.approx([(11 - 5) / 17, 1 / 2, 2 / 3, 0.0])


def test_missing_features_raise_naming_them():
    no_length = [Comparison("p1", "x", "y", 1.0, length_a=10),
                 Comparison("p2", "x", "y", 1.0, length_a=10, length_b=3)]
    with pytest.raises(ValueError, match=r"output of 'y' on prompt 'p1'"):
        style_differences(Comparisons.of(no_length))
    some_text = [Comparison("p1", "x", "y", 1.0, text_a="a", text_b="b"),
                 Comparison("p2", "x", "y", 1.0, length_a=1, length_b=2)]
    with pytest.raises(ValueError, match=r"1 of 2 comparisons lack one \(first: prompt 'p2'"):
        style_differences(Comparisons.of(some_text))
    length_only = style_differences(Comparisons.of(some_text), ("length",))
    assert length_only[1] == ("length",)
    with pytest.raises(ValueError, match="markdown style control needs"):
        style_differences(Comparisons.of(no_length[1:]), ("length", "bold"))
    with pytest.raises(ValueError, match="unknown style feature"):
        style_differences(Comparisons.of(no_length[1:]), ("colour",))


def _length_driven(prompts: int = 300, seed: int = 0) -> Comparisons:
    """Three systems of equal quality but different lengths against a baseline: the judge
    prefers the longer output (logit 3 per unit of normalised length difference)."""
    rng = np.random.default_rng(seed)
    ranges = {"long": (600, 3000), "medium": (300, 2000), "short": (100, 1200)}
    rows = []
    for p in range(prompts):
        lb = int(rng.integers(300, 2000))
        for name, (lo, hi) in ranges.items():
            la = int(rng.integers(lo, hi))
            d = (la - lb) / (la + lb + 1)
            won = rng.random() < 1 / (1 + math.exp(-3.0 * d))
            rows.append(Comparison(f"p{p}", name, "base", float(won), length_a=la, length_b=lb))
    return Comparisons.of(rows)


def test_style_control_removes_a_pure_length_effect():
    data = _length_driven(600)
    raw = fit_bradley_terry(data, "base", rounds=20)
    controlled = style_controlled_bt(data, "base", rounds=20, seed=1)
    assert raw["long"].score - raw["short"].score > 180  # 1111 - 874 for this seed
    assert raw["long"].ci.low > raw["short"].ci.high
    # every system's standard error is about 20 points: equal quality within 3 of them
    scores = [s.score for s in controlled.scores]
    assert max(abs(x - 1000) for x in scores) < 60
    assert max(scores) - min(scores) < 80
    (coef,) = controlled.coefficients
    # the simulated judge's 3 logits per unit of difference, per standard deviation
    diff, _, _ = style_differences(data)
    assert coef.feature == "length"
    assert coef.coefficient == pytest.approx(3.0 * diff.std(), rel=0.2)
    assert coef.ci.low <= coef.coefficient <= coef.ci.high and coef.ci.low > 0
    assert controlled.features == ("length",)
    assert controlled.notes and "length only" in controlled.notes[0]


def test_style_control_without_style_effect_matches_plain_bt_and_drops_constants():
    rng = np.random.default_rng(3)
    rows = [Comparison(f"p{i}", "x", "base", float(rng.random() < 0.75),
                       text_a="a" * int(rng.integers(5, 50)), text_b="b" * int(rng.integers(5, 50)))
            for i in range(200)]
    data = Comparisons.of(rows)
    controlled = style_controlled_bt(data, "base", rounds=20)
    raw = fit_bradley_terry(data, "base", rounds=20)
    assert controlled.features == ("length",)
    assert [n for n in controlled.notes if "dropped" in n] == [
        f"style feature {f!r} is the same in every comparison: dropped"
        for f in ("headers", "lists", "bold")]
    # lengths unrelated to the verdicts: the controlled score stays near the raw one
    x = next(s for s in controlled.scores if s.system == "x")
    assert abs(x.score - raw["x"].score) < 25
    assert x.ci.low <= x.score <= x.ci.high
    assert x.win_rate is not None and 60 < x.win_rate < 90


def test_style_control_is_seeded():
    data = _length_driven(prompts=60, seed=4)
    one = style_controlled_bt(data, "base", rounds=10, seed=7)
    two = style_controlled_bt(data, "base", rounds=10, seed=7)
    assert np.array_equal(one.samples, two.samples)
    assert one.coefficients == two.coefficients
