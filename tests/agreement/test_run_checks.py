"""run_agreement and ``jurybox agreement`` refuse options they cannot honour before reading
far: a missing --by column, a repeated --by field, an empty --exclude-codes entry, too many
resamples, an --out that cannot be a folder; each a one-line error through the CLI."""

import pytest
from typer.testing import CliRunner

from jurybox.agreement import run_agreement
from jurybox.agreement.run import MAX_RESAMPLES
from jurybox.cli import app
from jurybox.errors import ConfigError, DataError

runner = CliRunner()


def _ratings(tmp_path, header="item_id,rater_id,dimension,score"):
    path = tmp_path / "r.csv"
    # 3 items x 2 raters on one dimension, both raters giving item i the score i
    rows = "".join(f"i{i},r{r},d,{i}" + ("," * header.count(",domain")) + "\n"
                   for i in range(1, 4) for r in "ab")
    path.write_text(header + "\n" + rows)
    return path


def test_by_domain_without_a_domain_column(tmp_path):
    path = _ratings(tmp_path)
    with pytest.raises(DataError) as err:
        run_agreement(path, by=["dimension", "domain"], resamples=0, out=tmp_path / "a",
                      plots=False)
    assert (err.value.path, err.value.field) == (str(path), "domain")
    assert "the ratings have no 'domain' column" in err.value.message


def test_by_domain_with_an_empty_domain_column(tmp_path):
    path = _ratings(tmp_path, "item_id,rater_id,dimension,score,domain")
    with pytest.raises(DataError, match="no 'domain' column .or it is empty on every row"):
        run_agreement(path, by=["dimension", "domain"], resamples=0, out=tmp_path / "a",
                      plots=False)


def test_the_bundled_ratings_still_group_by_domain(tmp_path):
    report = run_agreement("squality", by=["dimension", "domain"], resamples=0,
                           out=tmp_path / "a", plots=False)
    assert all(set(g.key) == {"dimension", "domain"} for g in report.results)


@pytest.mark.parametrize("kwargs, message", [
    ({"by": ["dimension", "dimension"]}, "--by names 'dimension' more than once"),
    ({"resamples": MAX_RESAMPLES + 1}, "--resamples must be 0 to 100,000, got 100001"),
    ({"resamples": -1}, "--resamples must be 0 to 100,000, got -1"),
])
def test_bad_options_are_config_errors(tmp_path, kwargs, message):
    with pytest.raises(ConfigError, match=message):
        run_agreement(_ratings(tmp_path), out=tmp_path / "a", plots=False,
                      **{"resamples": 0, **kwargs})
    assert not (tmp_path / "a").exists()


def _cli(*args):
    result = runner.invoke(app, ["agreement", *args, "--no-plots"])
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_cli_one_line_errors(tmp_path):
    path, out = str(_ratings(tmp_path)), str(tmp_path / "a")
    assert "field 'domain': --by domain: the ratings have no 'domain' column" in _cli(
        path, "--by", "dimension,domain", "--out", out)
    assert "--by names 'dimension' more than once" in _cli(path, "--by", "dimension,dimension",
                                                           "--out", out)
    assert "--exclude-codes has an empty entry in '0,,1'" in _cli(path, "--exclude-codes",
                                                                   "0,,1", "--out", out)
    assert "--resamples must be 0 to 100,000, got 100000000000" in _cli(
        "squality", "--resamples", "100000000000", "--out", out)


def test_an_out_that_cannot_be_created_names_the_path(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    line = _cli(str(_ratings(tmp_path)), "--resamples", "0", "--out", str(blocker / "x"))
    assert line == (f"error: cannot use {str(blocker / 'x')!r} as the output directory "
                    f"(--out): Not a directory")


def test_control_characters_in_rater_ids_reach_no_terminal_through_plot_warnings(tmp_path):
    # matplotlib warned "Glyph 27 (\x1b) missing from font(s)" with the raw ESC: the plots'
    # labels show data's control characters escaped, as the terminal does
    import subprocess
    import sys

    path = tmp_path / "r.csv"
    rows = "".join(f"i{i},r\x1b[2J{r},d\x1b]0;x\x07,{(i * (r + 1)) % 5 + 1}\n"
                   for i in range(12) for r in range(3))
    path.write_text("item_id,rater_id,dimension,score\n" + rows)
    done = subprocess.run([sys.executable, "-m", "jurybox", "agreement", str(path),
                           "--min-common", "5", "--resamples", "50", "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert list((tmp_path / "out").glob("*.png"))
