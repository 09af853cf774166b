"""jurybox rank on systems' outputs, judged live by a fake judge on 127.0.0.1 whose verdicts
are known, so every figure is hand-computed.

Three systems on four prompts: ``good`` beats the baseline on 3 of 4 prompts, ``bad`` on 1 of
4 (the judge prefers the response with the higher hidden quality, in both orders).
"""

import json
import math
import re

import pytest
from typer.testing import CliRunner

from jurybox.cli import app

from ..providers.fake_server import completion, fake_server

cli = CliRunner()
# quality of each output: the judge prefers the higher one whatever the order
QUALITY = {}
ROWS = []
for i, (good, bad) in enumerate([(3, 1), (3, 1), (3, 1), (1, 3)]):
    outputs = {"base": f"base answer {i}", "good": f"good answer {i}", "bad": f"bad answer {i}"}
    QUALITY.update({outputs["base"]: 2, outputs["good"]: good, outputs["bad"]: bad})
    ROWS.append({"id": f"p{i}", "prompt": f"Question {i}?", "outputs": outputs})


def _shown(text: str, label: str) -> str:
    return re.search(rf"\[\[response {label} \w+\]\]\n(.*?)\n\[\[end response {label}", text,
                     re.S).group(1)


def fair(request: dict) -> str:
    text = request["messages"][-1]["content"]
    a, b = QUALITY[_shown(text, "A")], QUALITY[_shown(text, "B")]
    return completion("[[A>B]]" if a > b else "[[B>A]]" if b > a else "[[A=B]]")


def first_shown(request: dict) -> str:
    return completion("[[A>B]]")  # always the response shown first: pure position bias


def _rank(tmp_path, url, *extra, exit_code=0):
    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    result = cli.invoke(app, ["rank", str(path), "--model", "vllm/m", "--base-url", url,
                              "--structured", "off", "--attempts", "1", "--no-cache",
                              "--rounds", "200", "--out", str(tmp_path / "rank"), *extra])
    assert result.exit_code == exit_code, result.output
    return result.output, json.loads((tmp_path / "rank" / "summary.json").read_text())


def test_a_fair_judge_gives_the_hand_computed_win_rates_and_scores(tmp_path):
    with fake_server(fair) as url:
        out, s = _rank(tmp_path, url, "--baseline", "base")
    rows = {r["name"]: r for r in s["systems"]}
    assert [r["name"] for r in s["systems"]] == ["good", "base", "bad"]
    assert (s["n_comparisons"], s["n_failed"], s["n_prompts"]) == (8, 0, 4)
    assert rows["good"]["win_rate"] == 75.0 and rows["bad"]["win_rate"] == 25.0
    assert rows["base"]["win_rate"] is None and rows["base"]["bt"] == 1000.0
    # Bradley-Terry against one baseline: 3 wins in 4 -> 400 log10(3) Elo above it
    assert rows["good"]["bt"] == pytest.approx(1000 + 400 * math.log10(3), abs=0.5)
    assert rows["bad"]["bt"] == pytest.approx(1000 - 400 * math.log10(3), abs=0.5)
    low, high = rows["good"]["win_rate_ci"]
    assert low <= 75.0 <= high and high == 100.0
    pooled = s["order"][0]
    assert (pooled["a"], pooled["n_orders"], pooled["flip_rate"]) == ("*", 8, 0.0)
    assert pooled["first_shown_rate"] == 50.0
    assert "75.0" in out and (tmp_path / "rank" / "leaderboard.csv").exists()
    csv = (tmp_path / "rank" / "leaderboard.csv").read_text().splitlines()
    assert csv[0].startswith("rank,rank_low,rank_high,name,n,win_rate")
    assert csv[1].split(",")[3:6] == ["good", "4", "75.0"]
    page = (tmp_path / "rank" / "report.html").read_text()
    assert "Leaderboard" in page and "good" in page and "judge/report.html" in page
    # jurybox report rewrites a ranking's page from its summary.json (no statistics)
    (tmp_path / "rank" / "report.html").unlink()
    result = cli.invoke(app, ["report", str(tmp_path / "rank")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rank" / "report.html").read_text().count("<tr>") == page.count("<tr>")


def test_a_judge_that_always_picks_the_first_shown_ties_every_pair(tmp_path):
    with fake_server(first_shown) as url:
        out, s = _rank(tmp_path, url, "--baseline", "base")
    rows = {r["name"]: r for r in s["systems"]}
    assert rows["good"]["win_rate"] == rows["bad"]["win_rate"] == 50.0
    pooled = s["order"][0]
    assert (pooled["flip_rate"], pooled["first_shown_rate"]) == (100.0, 100.0)
    assert "flipped with the order for 100.0% of 8 pairs" in out


def test_a_failed_judgment_is_left_out_and_counted_never_a_tie(tmp_path):
    def flaky(request: dict) -> str:
        text = request["messages"][-1]["content"]
        if "good answer 3" in text:
            return completion("no verdict here")
        return fair(request)

    with fake_server(flaky) as url:
        # a partial run exits 3, as judge's does, after the leaderboard is written
        out, s = _rank(tmp_path, url, "--baseline", "base", exit_code=3)
    rows = {r["name"]: r for r in s["systems"]}
    assert s["n_failed"] == 1 and s["n_comparisons"] == 7
    assert rows["good"]["win_rate"] == 100.0 and rows["good"]["n"] == 3
    assert "1 pairs have no decision" in out


def test_bad_input_is_one_line_before_any_call(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": "p", "prompt": "q", "outputs": {"a": "x"}}) + "\n")
    result = cli.invoke(app, ["rank", str(path), "--model", "sim", "--baseline", "a"])
    assert result.exit_code == 2
    assert "1 system(s): ranking needs outputs of at least two" in result.output
    path.write_text(json.dumps({"id": "p", "prompt": "q", "outputs": {"a": "x", "b": "y"}})
                    + "\n")
    result = cli.invoke(app, ["rank", str(path), "--model", "sim", "--baseline", "c"])
    assert result.exit_code == 2 and "--baseline 'c' is not a system" in result.output
    result = cli.invoke(app, ["rank", str(path), "--model", "sim"])
    assert result.exit_code == 2 and "--pairing baseline needs --baseline" in result.output


def test_the_python_api_ranks_like_the_command(tmp_path):
    import jurybox

    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with fake_server(fair) as url:
        result = jurybox.rank(path, baseline="base", model="vllm/m", base_url=url,
                              out=tmp_path / "api", rounds=50,
                              options=jurybox.RunOptions(cache_path=None))
    assert [r.name for r in result.leaderboard.systems] == ["good", "base", "bad"]
    assert result.summary["systems"][0]["win_rate"] == 75.0
    assert (tmp_path / "api" / "judge" / "items.jsonl").exists()


def test_a_system_whose_every_pair_failed_is_listed_unranked(tmp_path):
    def no_bad(request: dict) -> str:
        if "bad answer" in request["messages"][-1]["content"]:
            return completion("no verdict here")
        return fair(request)

    with fake_server(no_bad) as url:
        out, s = _rank(tmp_path, url, "--baseline", "base", exit_code=3)
    assert [(r["name"], r["n"], r["rank"]) for r in s["systems"]][-1] == ("bad", 0, None)
    assert s["n_failed"] == 4
    assert any("not ranked, no pair of theirs has a decision" in n and "bad" in n
               for n in s["notes"])


def test_a_jury_ranks_by_its_weighted_vote_with_each_judges_order_effects(tmp_path):
    # the fair judge (weight 2) decides every pair in both orders; the first-shown judge
    # names A in both orders, so its both-orders verdict is a tie on every pair (weight 1):
    # the jury's vote is the fair judge's, and only the first-shown judge's verdicts flip
    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with fake_server(fair) as fair_url, fake_server(first_shown) as biased_url:
        (tmp_path / "jury.yaml").write_text(
            f"judges:\n  - {{model: vllm/m, name: fair, base_url: '{fair_url}', weight: 2}}\n"
            f"  - {{model: vllm/m, name: biased, base_url: '{biased_url}'}}\n")
        result = cli.invoke(app, ["rank", str(path), "--jury", str(tmp_path / "jury.yaml"),
                                  "--baseline", "base", "--structured", "off", "--attempts",
                                  "1", "--no-cache", "--rounds", "200",
                                  "--out", str(tmp_path / "rank")])
    assert result.exit_code == 0, result.output
    s = json.loads((tmp_path / "rank" / "summary.json").read_text())
    rows = {r["name"]: r for r in s["systems"]}
    assert rows["good"]["win_rate"] == 75.0 and rows["bad"]["win_rate"] == 25.0
    assert s["judge"] == "jury of biased, fair" and s["order"] is None
    by_judge = s["order_by_judge"]
    assert (by_judge["fair"]["n_orders"], by_judge["fair"]["flip_rate"],
            by_judge["fair"]["first_shown_rate"]) == (8, 0.0, 50.0)
    assert (by_judge["biased"]["n_orders"], by_judge["biased"]["flip_rate"],
            by_judge["biased"]["first_shown_rate"]) == (8, 100.0, 100.0)
    assert "order effects of judge biased: verdicts flipped with the order for 100.0% of 8" \
        in result.output
    page = (tmp_path / "rank" / "report.html").read_text()
    assert "Each judge's order effects" in page
    assert re.search(r"<td>judge biased, all pairs</td><td class=\"num\">8</td>"
                     r"<td class=\"num\">100.0</td>", page)
    assert re.search(r"<td>judge fair, all pairs</td><td class=\"num\">8</td>"
                     r"<td class=\"num\">0.0</td>", page)


def test_a_jurys_dry_run_prices_each_judge_on_the_planned_pairs_and_calls_none(tmp_path):
    # 4 prompts x 2 systems against the baseline = 8 pairs, none identical; both orders: 16
    # calls per judge; at 1 USD in / 2 USD out per million tokens the served judge's price
    # is a range, the simulated judge's 0, and nothing is written under --out
    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    asked = []
    with fake_server(lambda request: asked.append(request) or fair(request)) as url:
        (tmp_path / "jury.yaml").write_text(
            f"judges:\n  - {{model: vllm/m, name: served, base_url: '{url}', "
            f"price_in: 1, price_out: 2}}\n  - {{model: sim, name: simulated}}\n")
        result = cli.invoke(app, ["rank", str(path), "--jury", str(tmp_path / "jury.yaml"),
                                  "--baseline", "base", "--dry-run",
                                  "--out", str(tmp_path / "rank")])
    assert result.exit_code == 0, result.output
    assert asked == [] and not (tmp_path / "rank").exists()
    out = " ".join(result.output.split())
    assert out.count("8 pairs of 3 systems, protocol both-orders") == 2
    assert out.count("units: 8 calls: 16") == 2
    assert "judge served (weight 1):" in out and "judge simulated (weight 1):" in out
    assert re.search(r"jury of 2 judges: \d+\.\d{4} to \d+\.\d{4} USD", out)


# -- selective ranking: only the verdicts a calibrated rule accepts ------------------------

# the calibration pairs: 30 the judge gets right in both orders (quality 5 vs 4), 10 where it
# picks whatever is shown first ("hard": its two orders disagree, a net tie)
CALIBRATION = [{"id": f"c{i}", "prompt": f"Calibration {i}?",
                "candidates": [f"cal strong {i}", f"cal weak {i}"] if i % 2 else
                [f"cal weak {i}", f"cal strong {i}"], "gold": i % 2 == 0}
               for i in range(30)]
CALIBRATION += [{"id": f"h{i}", "prompt": f"Hard {i}?",
                 "candidates": [f"hard one {i}", f"hard two {i}"], "gold": 0}
                for i in range(10)]
for row in CALIBRATION[:30]:
    QUALITY.update({t: 5 if "strong" in t else 4 for t in row["candidates"]})
    row["gold"] = 0 if "strong" in row["candidates"][0] else 1
# the ranking: good's answer to prompt 2 is "hard" for the judge (its orders disagree)
SELECTIVE_ROWS = [dict(r, outputs=dict(r["outputs"], good="hard good answer 2"))
                  if r["id"] == "p2" else r for r in ROWS]


def choosy(request: dict) -> str:
    text = request["messages"][-1]["content"]
    a, b = _shown(text, "A"), _shown(text, "B")
    if "hard" in a or "hard" in b:
        return completion("[[A>B]]")  # the first shown, whatever it is
    return fair(request)


def _rank_choosy(tmp_path, *extra):
    systems = tmp_path / "systems.jsonl"
    systems.write_text("".join(json.dumps(r) + "\n" for r in SELECTIVE_ROWS))
    with fake_server(choosy) as url:
        result = cli.invoke(app, [
            "rank", str(systems), "--model", "vllm/m", "--base-url", url, "--structured", "off",
            "--attempts", "1", "--no-cache", "--rounds", "200", "--baseline", "base",
            "--out", str(tmp_path / "rank"), *extra])
    assert result.exit_code == 0, result.output
    return result, json.loads((tmp_path / "rank" / "summary.json").read_text())


def test_a_selective_ranking_ranks_only_the_accepted_verdicts(tmp_path):
    calibration = tmp_path / "calibration.jsonl"
    calibration.write_text("".join(json.dumps(r) + "\n" for r in CALIBRATION))
    result, s = _rank_choosy(tmp_path, "--target-agreement", "0.8",
                             "--calibration", str(calibration))
    sel = s["selective"]
    # half the 40 calibration pairs calibrate: the judge's both-orders agreement (1 on the
    # 30 it gets right, 0 on the hard ones) certifies 80% at threshold 1; the other half
    # measures it: every accepted held-out pair right
    assert sel["signal"] == "order agreement" and sel["rules"]["order agreement"]["threshold"] == 1
    assert sel["test"]["agreement"] == 1.0 and sel["test"]["n"] == 20
    assert sel["guarantee"].startswith("with probability at least 90%")
    # 8 pairs judged (good and bad vs base on 4 prompts); good's prompt-2 pair is abstained
    assert (sel["pairs_accepted"], sel["pairs_judged"]) == (7, 8)
    rows = {r["name"]: r for r in s["systems"]}
    # good: wins p0, p1, loses p3 (p2 left out, not a tie): 2 of 3; bad: wins p3 only
    assert rows["good"]["win_rate"] == pytest.approx(100 * 2 / 3)
    assert rows["bad"]["win_rate"] == 25.0
    assert s["n_comparisons"] == 7 and s["n_failed"] == 0
    assert any("only the 7 of 8 judged pairs" in n for n in s["notes"])
    assert "7 of 8 unlabelled items accepted" in " ".join(result.output.split())
    # the calibration pairs are a judge run of their own
    assert (tmp_path / "rank" / "calibration" / "items.jsonl").is_file()


def test_without_selective_the_hard_pair_is_a_tie(tmp_path):
    _, s = _rank_choosy(tmp_path)
    good = next(r for r in s["systems"] if r["name"] == "good")
    assert good["win_rate"] == 62.5  # (1 + 1 + 0.5 + 0) / 4: the orders' net tie counts half
    assert "selective" not in s


@pytest.mark.parametrize("extra, message", [
    (["--target-agreement", "0.8"], "--target-agreement and --calibration go together"),
    (["--calibration", "x.jsonl"], "--target-agreement and --calibration go together"),
])
def test_selective_ranking_needs_both_options(tmp_path, extra, message):
    systems = tmp_path / "systems.jsonl"
    systems.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    result = cli.invoke(app, ["rank", str(systems), "--model", "sim", *extra])
    assert result.exit_code == 2 and message in result.output


def test_a_bad_calibration_file_is_refused_before_any_call(tmp_path):
    systems = tmp_path / "systems.jsonl"
    systems.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "prompt": "q", "candidates": ["a", "b"], "gold": 0}\n{"id": 1\n')
    calls = []

    def counting(request):
        calls.append(1)
        return fair(request)

    with fake_server(counting) as url:
        result = cli.invoke(app, ["rank", str(systems), "--model", "vllm/m", "--base-url", url,
                                  "--structured", "off", "--no-cache", "--out",
                                  str(tmp_path / "r"), "--baseline", "base",
                                  "--target-agreement", "0.8",
                                  "--calibration", str(bad)])
    assert result.exit_code == 2 and "bad.jsonl" in result.output and ":2" in result.output
    assert calls == []


def test_the_python_api_ranks_the_accepted_verdicts_too(tmp_path):
    from jurybox.leaderboard.run import rank
    from jurybox.run import RunOptions
    from jurybox.runner import RetryPolicy

    systems = tmp_path / "systems.jsonl"
    systems.write_text("".join(json.dumps(r) + "\n" for r in SELECTIVE_ROWS))
    calibration = tmp_path / "calibration.jsonl"
    calibration.write_text("".join(json.dumps(r) + "\n" for r in CALIBRATION))
    options = RunOptions(structured="off", cache_path=None, retry=RetryPolicy(attempts=1))
    with fake_server(choosy) as url:
        ranked = rank(systems, baseline="base", model="vllm/m", base_url=url, rounds=200,
                      out=tmp_path / "rank", options=options, target=0.8,
                      calibration=calibration)
    sel = ranked.summary["selective"]
    assert (sel["pairs_accepted"], sel["pairs_judged"]) == (7, 8)
    assert ranked.leaderboard.n_comparisons == 7
    with pytest.raises(Exception, match="target= and calibration="):
        rank(systems, baseline="base", model="sim", target=0.8, out=tmp_path / "x")
