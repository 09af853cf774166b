"""Personalize inputs checked before any model call: ratings against the rubric's scales,
judge kinds."""

import math

import pytest

from jurybox.datasets import Rating, RatingsTable
from jurybox.errors import ConfigError, DataError
from jurybox.personalize import check_scales, conditions
from jurybox.rubrics import Rubric

RUBRIC = Rubric.model_validate({"name": "t", "dimensions": [
    {"name": "quality", "scale": {"min": 0, "max": 100}},
    {"name": "fit", "scale": {"min": 1, "max": 3}, "exclusion": {"code": 0, "meaning": "n/a"}},
]})


def _table(*scores):
    return RatingsTable([Rating(f"i{n}", "r1", dim, score, line=n + 2)
                         for n, (dim, score) in enumerate(scores)], path="r.csv")


def test_ratings_on_the_scale_pass():
    # 0 and 100 are the ends of quality's 0-100; NaN is an exclusion code load_ratings removed
    check_scales(_table(("quality", 0.0), ("quality", 100.0), ("fit", 3.0), ("fit", math.nan),
                        ("other", 500.0)), RUBRIC, ["quality", "fit"])


@pytest.mark.parametrize("dim, score, line, fragment", [
    ("quality", 500.0, 3, "score 500 by rater 'r1' is not on the rubric's scale for 'quality': "
                          "an integer 0-100"),
    ("quality", -1.0, 3, "score -1 "),
    ("quality", 50.5, 3, "score 50.5 "),
    ("fit", 4.0, 3, "an integer 1-3 or the exclusion code 0"),
])
def test_a_rating_off_the_scale_names_file_line_and_score(dim, score, line, fragment):
    table = _table(("quality", 10.0), (dim, score))  # the bad rating is the second: line 3
    with pytest.raises(DataError) as err:
        check_scales(table, RUBRIC, ["quality", "fit"])
    assert (err.value.path, err.value.line, err.value.field) == ("r.csv", line, "score")
    assert fragment in err.value.message


def test_only_the_judged_dimensions_are_checked():
    check_scales(_table(("quality", 500.0)), RUBRIC, ["fit"])


def test_no_judge_kind_or_a_repeated_one_is_refused():
    with pytest.raises(ConfigError, match="names no judge kind"):
        conditions((), (0, 2))  # used to run zero-shot alone because 0 is a shot count
    with pytest.raises(ConfigError, match="names 'aggregate' more than once"):
        conditions(("aggregate", "zero-shot", "aggregate"), (0, 2))
