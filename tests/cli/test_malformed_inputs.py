"""Bad inputs through the CLI: one line on stderr starting with "error:", exit 2, no
traceback, and no model call (no calls.jsonl)."""

import json

from typer.testing import CliRunner

from jurybox.cli import app

from ..cli_checks import one_line_error

runner = CliRunner()


def _bench(tmp_path, dataset, *extra):
    out = tmp_path / "o"
    result = runner.invoke(app, ["bench", str(dataset), "--model", "sim", "--out", str(out),
                                 "--no-cache", *extra])
    assert not (out / "calls.jsonl").exists()
    return result


def test_a_directory_as_the_dataset(tmp_path):
    (tmp_path / "somedir").mkdir()
    one_line_error(_bench(tmp_path, tmp_path / "somedir"), "somedir: not a file")


def test_27_candidates_fail_before_the_run_starts(tmp_path):
    # before: ValueError from protocols.prompts.labels_for once judging had started
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "a", "prompt": "Q?", "candidates": [f"c{i}" for i in
                                                                          range(27)],
                                "gold": 0}) + "\n")
    one_line_error(_bench(tmp_path, path), "d.jsonl:1: field 'candidates': at most 26")


def test_a_lone_surrogate_fails_before_the_run_starts(tmp_path):
    # before: a UnicodeEncodeError when the request was sent, after the run had started
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "prompt": "Q\\ud800", "candidates": ["x", "y"], "gold": 0}\n')
    one_line_error(_bench(tmp_path, path), "d.jsonl:1: field 'prompt': contains a lone "
                                            "surrogate")


def test_n_candidates_above_26(tmp_path):
    result = _bench(tmp_path, "truthfulqa", "--n-candidates", "27")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "--n-candidates" in result.output


def test_a_protocol_named_twice_and_verdict_format_on_listwise(tmp_path):
    one_line_error(_bench(tmp_path, "rewardbench2-sample", "--protocols", "direct,direct"),
                    "--protocols names 'direct' more than once")
    one_line_error(_bench(tmp_path, "rewardbench2-sample", "--verdict-format", "json"),
                    "--verdict-format is for pairwise protocols; 'direct' is listwise")


def _personalize(tmp_path, ratings, *extra):
    out = tmp_path / "p"
    result = runner.invoke(app, ["personalize", str(ratings), "--items", "squality",
                                 "--rubric", "squality", "--shots", "0", "--seeds", "1",
                                 "--no-cache", "--out", str(out), *extra])
    assert not (out / "calls.jsonl").exists()
    return result


def test_a_rating_off_the_rubric_scale(tmp_path):
    # squality's correctness is 0-100; a rating of 500 gave an MAE of 210 before
    path = tmp_path / "r.csv"
    path.write_text("item_id,rater_id,dimension,score\nsq_50827_q0_bart,sq_w3,correctness,10\n"
                    "sq_50827_q0_bart,sq_w2,correctness,500\n")
    one_line_error(_personalize(tmp_path, path), "r.csv:3: field 'score': score 500 by rater "
                    "'sq_w2' is not on the rubric's scale for 'correctness': an integer 0-100")


def test_an_empty_judge_list(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("item_id,rater_id,dimension,score\nsq_50827_q0_bart,sq_w3,correctness,10\n")
    one_line_error(_personalize(tmp_path, path, "--configs", ","),
                    "--judges/--configs names no judge kind")


def test_a_ratings_csv_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("item_id,rater_id,dimension,score\n" + "".join(
        f"i{i},r{r},d,{(i * r) % 4}\n" for i in range(12) for r in range(3)),
        encoding="utf-8-sig")
    result = runner.invoke(app, ["agreement", str(path), "--no-plots", "--resamples", "0",
                                 "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    groups = json.loads((tmp_path / "a" / "summary.json").read_text())["groups"]
    assert [(g["key"], g["n_ratings"]) for g in groups] == [({"dimension": "d"}, 36)]  # 12 x 3


def test_cache_inspection_never_creates_a_cache(tmp_path):
    path = tmp_path / "new" / "dir" / "c.sqlite"
    for action in ("info", "clear"):
        result = runner.invoke(app, ["cache", action, "--path", str(path)])
        assert result.exit_code == 0 and f"no cache at {path}" in result.output
    assert not (tmp_path / "new").exists()


def test_score_warns_about_corrupt_lines_in_calls_jsonl(tmp_path):
    run = tmp_path / "run"
    args = ["bench", "rewardbench2-sample", "--k", "2", "--limit", "3", "--out", str(run),
            "--no-cache"]
    assert runner.invoke(app, args).exit_code == 0
    calls = run / "calls.jsonl"
    lines = calls.read_text().splitlines()
    # 3 items x 2 calls (PCF's K=2; direct is PCF's first call, not an extra one)
    assert len(lines) == 6
    lines[1] = lines[1][:20]  # cut short
    lines.insert(4, "\x00not json")
    calls.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["score", str(run), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.output.splitlines() if ln.startswith("warning:")]
    assert warnings == [f"warning: {calls}: skipped 2 line(s) that are not JSON records (line "
                        f"2, 5); the calls they recorded are failures in the rescore"]
    assert "Traceback" not in result.output
