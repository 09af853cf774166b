"""List options of a personalize run (raters, dimensions, shots): an empty list, a repeated
entry or a count below 1 is a ConfigError naming the flag, never a silent fallback to the
default or the same judgment made twice."""

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.datasets import Rating, RatingsTable
from jurybox.errors import ConfigError
from jurybox.personalize import conditions, select_units

runner = CliRunner()
TABLE = RatingsTable([Rating(f"i{i}", f"r{r}", "d", 1.0) for i in range(3) for r in range(2)],
                     path="r.csv")


def _units(raters):
    return select_units(TABLE, raters=raters, limit=None, items=["i0", "i1", "i2"], seed=0)


def test_raters_as_ids_and_as_a_count_still_work():
    # r0 and r1 each rated i0..i2: 2 raters x 3 items = 6 units, whichever way chosen
    assert len(_units(("r1", "r0"))) == len(_units(2)) == len(_units(None)) == 6
    assert {u.rater_id for u in _units(1)} in ({"r0"}, {"r1"})


@pytest.mark.parametrize("raters, fragment", [
    ((), "--raters names no rater"),
    (("r0", "r0"), "--raters names 'r0' more than once"),
    (0, "--raters must be a number of raters to sample (>= 1) or a comma list of rater ids, "
        "got 0"),
    (-3, "got -3"),
])
def test_bad_raters(raters, fragment):
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        _units(raters)


@pytest.mark.parametrize("shots, fragment", [((), "--shots names no shot count"),
                                             ((1, 1), "--shots names '1' more than once"),
                                             ((0, 2, 0), "--shots names '0' more than once")])
def test_bad_shots(shots, fragment):
    with pytest.raises(ConfigError, match=fragment):
        conditions(("zero-shot", "personalized"), shots)


def _personalize(tmp_path, *extra):
    out = tmp_path / "p"
    result = runner.invoke(app, ["personalize", "squality", "--rubric", "squality",
                                 "--seeds", "1", "--no-cache", "--out", str(out), *extra])
    assert not (out / "calls.jsonl").exists()
    return result


@pytest.mark.parametrize("extra, message", [
    (["--raters", "sq_w3,sq_w3"], "--raters names 'sq_w3' more than once"),
    (["--raters", ""], "--raters names no rater"),
    (["--raters", ","], "--raters names no rater"),
    (["--raters", "0"], "--raters must be a number of raters to sample (>= 1)"),
    (["--dimensions", "overall,overall"], "--dimensions names 'overall' more than once"),
    (["--dimensions", ""], "--dimensions names no dimension"),
    (["--dimensions", " , "], "--dimensions names no dimension"),
    (["--shots", ""], "--shots names no shot count"),
    (["--shots", "1,1"], "--shots names '1' more than once"),
])
def test_the_cli_refuses_empty_and_repeated_lists(tmp_path, extra, message):
    result = _personalize(tmp_path, *extra)
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert message in lines[0], lines[0]
