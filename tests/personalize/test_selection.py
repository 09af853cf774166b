from collections import Counter

import pytest

from jurybox.datasets import Rating
from jurybox.protocols import select_examples

# 4 raters x 12 items, one dimension; items come in groups of 3 (g0: i0-i2, g1: i3-i5, ...)
RATINGS = [Rating(f"i{i}", f"r{r}", "d", float((i + r) % 5)) for r in range(4) for i in range(12)]
RATINGS += [Rating("i0", "r0", "other", 1.0), Rating("i12", "r1", "d", float("nan"))]
GROUPS = {f"i{i}": f"g{i // 3}" for i in range(12)}


def _select(config, k, item="i4", rater="r0", sample=0, **kw):
    return select_examples(config, k, ratings=RATINGS, target_rater=rater, item_id=item,
                           dimension="d", groups=GROUPS, seed=7, sample=sample, **kw)


@pytest.mark.parametrize("config", ["aggregate", "personalized"])
@pytest.mark.parametrize("sample", range(5))
def test_never_the_predicted_item_nor_its_group(config, sample):
    chosen = _select(config, 40, sample=sample).examples
    assert chosen and all(GROUPS[e.item_id] != "g1" for e in chosen)  # i4 is in g1
    assert all(e.item_id != "i4" for e in chosen)


def test_personalized_uses_only_the_target_and_aggregate_never_does():
    assert {e.rater_id for e in _select("personalized", 40).examples} == {"r0"}
    assert "r0" not in {e.rater_id for e in _select("aggregate", 40).examples}


def test_aggregate_is_balanced_over_raters():
    counts = Counter(e.rater_id for e in _select("aggregate", 6).examples)
    assert counts == {"r1": 2, "r2": 2, "r3": 2}
    counts = Counter(e.rater_id for e in _select("aggregate", 7).examples)
    assert sorted(counts.values()) == [2, 2, 3]


def test_shortfall_uses_all_and_records_it():
    # r0 rated 12 items on d; i3-i5 (the predicted item's group) are left out: 9 eligible
    sel = _select("personalized", 20)
    assert (len(sel.examples), sel.eligible, sel.shortfall) == (9, 9, 11)


def test_missing_scores_other_dimensions_and_zero_shot():
    chosen = _select("aggregate", 100, item="i7").examples
    assert "i12" not in {e.item_id for e in chosen}  # its only rating is missing (NaN)
    assert all(e.score == e.score for e in chosen)
    assert _select("zero-shot", 5).examples == ()
    assert _select("personalized", 0).examples == ()


def test_seeded_and_varies_with_the_sample_index():
    assert _select("aggregate", 4, sample=0) == _select("aggregate", 4, sample=0)
    draws = {tuple(e.item_id for e in _select("aggregate", 4, sample=s).examples)
             for s in range(6)}
    assert len(draws) > 1


def test_unknown_config():
    with pytest.raises(ValueError, match="judge must be one of"):
        _select("random", 3)
