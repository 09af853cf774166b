"""Text from data never steers the terminal: control characters (ESC sequences, carriage
returns, C1, DEL) and bidi overrides in ids, candidates, answers, names and errors are
printed as visible escapes; ordinary Unicode prints unchanged."""

import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.terminal import safe_text

from ..providers.fake_server import completion, fake_server, listwise_answer

runner = CliRunner()

TITLE = "\x1b]0;pwned\x07"      # sets the window title
CLEAR = "\x1b[2J"               # clears the screen
RED = "\x1b[31m"                # colours what follows
RLO = "\u202e"                  # right-to-left override (Trojan Source)
HOSTILE = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\r", "\x7f")


def _clean(output):
    for char in HOSTILE:
        assert char not in output, (char, output)


def test_safe_text_escapes_controls_and_bidi_and_keeps_other_text():
    assert safe_text(f"{TITLE}x{CLEAR}{RED}y\r\x7f\x9b{RLO}z\u2069") == (
        "\\x1b]0;pwned\\x07x\\x1b[2J\\x1b[31my\\x0d\\x7f\\x9b\\u202ez\\u2069")
    assert safe_text("tab\tnew\nline") == "tab\\x09new\\x0aline"
    assert safe_text("tab\tnew\nline\r", newlines=True) == "tab\tnew\nline\\x0d"
    ordinary = "naïve café — 日本語, العربية, emoji 🎉, ½ ≤ ∞"
    assert safe_text(ordinary) == ordinary
    assert safe_text(7) == "7"


def _hostile_input(tmp_path):
    data = tmp_path / "items.jsonl"
    rows = [{"id": f"q1{TITLE}", "prompt": f"What{CLEAR}?",
             "candidates": [f"yes{RED} it is", f"no{RLO}evil"]},
            {"id": "naïve-日本語", "prompt": "Fine?", "candidates": ["sí", "нет"]}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return data


def test_judge_table_and_show_print_hostile_data_escaped(tmp_path):
    data = _hostile_input(tmp_path)
    # raw control characters around the JSON answer (inside it, JSON escapes them)
    answer = f"because {TITLE} and {CLEAR}{RLO}\n" + listwise_answer()
    with fake_server(completion(answer)) as url:
        result = runner.invoke(app, ["judge", str(data), "--model", "vllm/m", "--base-url", url,
                                     "--protocol", "direct", "--no-cache",
                                     "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    _clean(result.output)
    assert "q1\\x1b]0;pwned\\x07" in result.output and "naïve-日本語" in result.output

    for item_id in (f"q1{TITLE}", "naïve-日本語"):
        shown = runner.invoke(app, ["show", str(tmp_path / "run"), item_id, "--prompts"])
        assert shown.exit_code == 0, shown.output
        _clean(shown.output)
    assert "yes\\x1b[31m it is" in shown.output or "sí" in shown.output
    first = runner.invoke(app, ["show", str(tmp_path / "run"), f"q1{TITLE}", "--prompts"])
    assert "because \\x1b]0;pwned\\x07 and \\x1b[2J\\u202e" in first.output
    assert "no\\u202eevil" in first.output and "What\\x1b[2J?" in first.output
    second = runner.invoke(app, ["show", str(tmp_path / "run"), "naïve-日本語"])
    assert "naïve-日本語" in second.output and "нет" in second.output


def test_bench_table_escapes_a_hostile_dataset_name(tmp_path):
    data = tmp_path / f"data{RED}{RLO}.jsonl"
    data.write_text("".join(json.dumps({"id": f"q{i}", "prompt": f"Q{i}?", "candidates": [
        f"right {i}", f"wrong {i}"], "gold": 0}) + "\n" for i in range(3)))
    result = runner.invoke(app, ["bench", str(data), "--model", "sim", "--k", "2", "--no-cache",
                                 "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    _clean(result.output)
    assert "data\\x1b[31m\\u202e" in result.output


def test_agreement_table_escapes_hostile_dimension_names(tmp_path):
    ratings = tmp_path / "ratings.csv"
    lines = ["item_id,rater_id,dimension,score"]
    for i in range(12):
        for r, shift in (("r1", 0), ("r2", 1)):
            lines.append(f"i{i},{r},clarity{CLEAR},{(i + shift) % 5 + 1}")
    ratings.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["agreement", str(ratings), "--no-plots", "--resamples", "0",
                                 "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    _clean(result.output)
    assert "clarity\\x1b[2J" in result.output


def test_errors_quoting_data_are_escaped(tmp_path):
    missing = tmp_path / f"no{TITLE}such{RLO}.jsonl"
    result = runner.invoke(app, ["judge", str(missing)])
    assert result.exit_code == 2
    _clean(result.output)
    assert "no\\x1b]0;pwned\\x07such\\u202e.jsonl" in result.output
    result = runner.invoke(app, ["judge", str(_hostile_input(tmp_path)), "--out",
                                 str(tmp_path / "x"), "--sim-faults", f"rate_{RED}=1"])
    assert result.exit_code == 2
    _clean(result.output)


@pytest.mark.parametrize("text", [f"{CLEAR}boom", f"x{RLO}y"])
def test_log_lines_are_escaped(text):
    import logging

    from jurybox.cli._log_format import SafeFormatter

    record = logging.LogRecord("jurybox.x", logging.WARNING, __file__, 1, "model %r lists %s",
                               ("m", text), None)
    line = SafeFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    _clean(line)
    assert line.startswith("WARNING jurybox.x: model 'm' lists ")
