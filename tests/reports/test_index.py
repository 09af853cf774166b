"""The index of runs: :func:`list_runs` on hand-written run files (every figure known by
hand) and on real runs (bench, judge, jury, agreement; figures from each run's own result),
damaged and foreign folders, and :func:`write_index`'s page."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from jurybox.errors import ConfigError, DataError
from jurybox.reports import is_run_folder, list_runs, write_index
from jurybox.reports.index import RunEntry
from jurybox.reports.index_page import cost_text
from tests.reports.index_runs import IndexRuns, make_runs

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")


def _manifest(**fields: object) -> dict:
    return {"schema": 1, "kind": "bench", "status": "complete",
            "started": "2026-03-01T10:20:30+00:00",
            "model": {"spec": "sim", "simulated": True, "label": "sim"},
            "dataset": {"name": "truthfulqa"},
            "totals": {"model_calls": 1454, "cache_hits": 7}, **fields}


def _by_name(runs: list[RunEntry]) -> dict[str, RunEntry]:
    return {e.name: e for e in runs}


@pytest.fixture
def hand(tmp_path: Path) -> Path:
    """A folder of hand-written runs, one of each kind, and damaged and foreign folders."""
    root = tmp_path / "runs"
    # 0.625 and 0.875 are exact in binary: 62.5% and 87.5%
    _write(root / "bench" / "run.json", _manifest())
    _write(root / "bench" / "summary.json", {"task": "listwise", "protocols": {
        "direct": {"accuracy": {"accuracy": 0.625, "n": 200}},
        "pcf": {"accuracy": {"accuracy": 0.875, "n": 200}}}, "cost": {"usd": 0.0123}})
    _write(root / "judge" / "run.json", _manifest(
        kind="judge", status="partial", model={"spec": "openai/gpt-4o-mini",
                                               "label": "openai/gpt-4o-mini"},
        dataset={"name": "mine"}, totals={"model_calls": 56}))
    _write(root / "judge" / "summary.json", {
        "task": "pairwise", "kind": "judge", "failed_units": {"units": 1, "api": 0},
        "protocols": {"both-orders": {"accuracy": {"accuracy": None, "n": 0}}},
        "judge": {"protocol": "both-orders", "n_items": 8, "n_failed": 1, "n_labelled": 0,
                  "flip_rate": 0.25, "outcome": {"won": 4, "lost": 2, "tied": 1}}})
    # Krippendorff (2011), data C, nominal: alpha 0.743 (the published value)
    _write(root / "agree" / "summary.json", {
        "ratings": "/data/c.csv", "groups": [{"key": {"dimension": "overall"},
                                              "alpha": {"alpha": 0.7434210526315789}}]})
    _write(root / "broken" / "run.json", "{not json")
    _write(root / "orphan" / "calls.jsonl", "")
    _write(root / "notes" / "readme.txt", "not a run")
    _write(root / ".hidden" / "run.json", _manifest())
    _write(root / "a" / "b" / "c" / "d" / "e" / "f" / "run.json", _manifest())  # 6 deep
    return root


def test_list_runs_on_hand_written_runs(hand):
    runs = _by_name(list_runs(hand))
    assert list(runs) == ["agree", "bench", "broken", "judge", "orphan"]  # path order

    bench = runs["bench"]
    assert (bench.kind, bench.dataset, bench.judge, bench.simulated) == (
        "bench", "truthfulqa", "simulated", True)
    assert (bench.status, bench.note) == ("complete", "")
    assert bench.results == "direct 62.5% · pcf 87.5%"
    assert (bench.model_calls, bench.cache_hits, bench.usd) == (1454, 7, 0.0123)
    assert bench.started == datetime(2026, 3, 1, 10, 20, 30, tzinfo=timezone.utc)
    assert bench.report is None and cost_text(bench) == "0.0123"

    judge = runs["judge"]
    assert (judge.kind, judge.dataset, judge.judge) == ("judge", "mine", "openai/gpt-4o-mini")
    assert (judge.status, judge.note) == ("partial", "1 item without a decision")
    # no labelled item: no accuracy claimed
    assert judge.results == ("8 items · 1 failed · flips 25.0% · "
                             "candidate 0 4 won, 2 lost, 1 tied")
    assert judge.usd is None and cost_text(judge) == "—"  # unpriced, not simulated

    agree = runs["agree"]
    assert (agree.kind, agree.dataset, agree.judge) == ("agreement", "c.csv", "human raters")
    assert agree.results == "overall α 0.743" and agree.model_calls is None

    assert runs["broken"].status == "unreadable" and runs["broken"].kind == "unknown"
    assert runs["broken"].note.startswith("run.json: is not valid JSON")
    assert runs["orphan"].status == "unreadable" and "no run.json" in runs["orphan"].note


def test_depth_is_bounded_and_the_folder_itself_can_be_a_run(hand):
    assert "a/b/c/d/e/f" in _by_name(list_runs(hand, max_depth=6))
    assert [e.name for e in list_runs(hand / "bench")] == ["."]
    assert is_run_folder(hand / "bench") and is_run_folder(hand / "agree")
    assert not is_run_folder(hand) and not is_run_folder(hand / "notes")


def test_list_runs_refuses_a_missing_folder_suggesting_the_closest(tmp_path):
    (tmp_path / "runs").mkdir()
    with pytest.raises(DataError, match="no such folder; did you mean .*runs'"):
        list_runs(tmp_path / "run")
    (tmp_path / "file").write_text("x")
    with pytest.raises(DataError, match="is not a folder"):
        list_runs(tmp_path / "file")
    assert list_runs(tmp_path / "runs") == []


def test_running_killed_and_interrupted(tmp_path):
    here = socket.gethostname()
    _write(tmp_path / "live" / "run.json", _manifest(status="running"))
    _write(tmp_path / "live" / "lock", {"pid": os.getpid(), "host": here, "started": "x"})
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    _write(tmp_path / "dead" / "run.json", _manifest(status="running"))
    _write(tmp_path / "dead" / "lock", {"pid": int(gone.stdout), "host": here, "started": "x"})
    _write(tmp_path / "away" / "run.json", _manifest(status="running"))
    _write(tmp_path / "away" / "lock", {"pid": 1, "host": "another-host", "started": "x"})
    _write(tmp_path / "stopped" / "run.json", _manifest(status="interrupted"))
    _write(tmp_path / "odd" / "run.json", _manifest(status="sleeping"))
    runs = _by_name(list_runs(tmp_path))
    assert (runs["live"].status, runs["live"].note) == ("running", f"process {os.getpid()}")
    assert runs["dead"].status == "killed"  # its pid exited above (and is not reused so soon)
    assert (runs["away"].status, runs["away"].note) == ("running", "process 1 on another-host")
    assert runs["stopped"].status == "interrupted"
    assert (runs["odd"].status, runs["odd"].note) == ("unfinished", "status 'sleeping'")
    assert runs["stopped"].results == ""  # no summary.json: nothing claimed


def test_a_jury_takes_the_worst_status_of_its_judges(tmp_path):
    jury = tmp_path / "jury"
    _write(jury / "jury.json", {"kind": "judge", "dataset": "pairs",
                                "judges": [{"name": "a"}, {"name": "b"}]})
    _write(jury / "judges" / "a" / "run.json", _manifest(status="complete"))
    _write(jury / "judges" / "b" / "run.json", _manifest(status="interrupted"))
    runs = _by_name(list_runs(tmp_path))
    assert list(runs) == ["jury", "jury/judges/a", "jury/judges/b"]
    assert (runs["jury"].kind, runs["jury"].judge) == ("jury", "jury of 2: a, b")
    assert runs["jury"].status == "interrupted"  # no summary.json: the jury did not decide
    _write(jury / "summary.json", {
        "kind": "jury", "dataset": "pairs", "n_items": 6, "judges": {
            "a": {"status": "complete", "simulated": True, "model_calls": 12, "usd": None},
            "b": {"status": "partial", "simulated": True, "model_calls": 10, "usd": None}},
        "protocols": {"apoc": {"jury": {"accuracy": 0.75, "n": 6},
                               "judges": {"b": {"accuracy": {"accuracy": 0.5, "n": 6}}},
                               "best_judge": "b", "alpha_nominal": {"alpha": 0.3}}}})
    entry = _by_name(list_runs(tmp_path))["jury"]
    assert (entry.status, entry.model_calls, entry.simulated) == ("partial", 22, True)
    assert entry.results == "apoc: jury 75.0%, best judge 50.0%, α 0.30"
    assert entry.judge == "jury of 2: a, b (simulated)"


def _garbage(rng: random.Random, depth: int = 0) -> object:
    choices = [None, True, 3, -1, 2.5, float("nan"), "x", SCRIPT, [], {}]
    if depth < 3:
        choices += [[_garbage(rng, depth + 1)], {k: _garbage(rng, depth + 1) for k in (
            "accuracy", "n", "alpha", "status", "protocols", "judge", "judges", "groups",
            "key", "mean", "alignment", "condition", "scores", "rule", "usd", "units")}]
    return rng.choice(choices)


@pytest.mark.parametrize("seed", range(40))
def test_damaged_files_are_rows_never_tracebacks(tmp_path, seed):
    """Seeded random JSON in every field the index reads: an entry or "unreadable"."""
    rng = random.Random(seed)
    fields = ("kind", "status", "started", "model", "dataset", "totals", "config", "replayed",
              "protocols", "task", "judge", "cost", "failed_units", "judges", "groups",
              "alignment", "scores", "source", "ratings", "n_items")
    for name in ("run", "jury", "agreement"):
        values = {f: _garbage(rng) for f in fields if rng.random() < 0.6}
        if name == "run":
            _write(tmp_path / name / "run.json", values)
            _write(tmp_path / name / "summary.json", values)
        elif name == "jury":
            _write(tmp_path / name / "jury.json", values)
            _write(tmp_path / name / "summary.json", {**values, "judges": _garbage(rng)})
        else:
            _write(tmp_path / name / "summary.json", {**values, "groups": _garbage(rng)})
    runs = list_runs(tmp_path)
    assert len(runs) == 3
    for entry in runs:
        assert entry.status in ("complete", "partial", "interrupted", "failed", "killed",
                                "running", "unfinished", "unreadable")
        assert isinstance(entry.results, str) and len(entry.results) <= 200


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> IndexRuns:
    return make_runs(tmp_path_factory.mktemp("index"))


def test_write_index_writes_missing_reports_and_links_them(real, tmp_path):
    root = Path(shutil.copytree(real.root, tmp_path / "runs"))  # mtimes kept: reports current
    (root / "bench" / "report.html").unlink()
    done = write_index(root)
    assert done.path == root / "index.html"
    assert done.reports_written == ("bench",) and done.report_failures == ()
    page = done.path.read_text(encoding="utf-8")
    assert 'href="bench/report.html"' in page and (root / "bench" / "report.html").is_file()
    assert 'href="jury/judges/a/report.html"' in page
    again = write_index(root)
    assert again.reports_written == ()  # every report is up to date now
    assert write_index(root, force=True).reports_written == tuple(
        e.name for e in again.runs if e.report is not None and e.status != "unreadable")


def test_write_index_refuses_a_run_and_an_empty_folder(tmp_path, hand):
    with pytest.raises(ConfigError, match="is a run directory"):
        write_index(hand / "bench")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match=r"no run.json\) and no run below it"):
        write_index(tmp_path / "empty")


def test_the_page_escapes_every_text_from_the_runs(tmp_path):
    root = tmp_path / "runs"
    run = root / IMG  # a folder name is data too
    _write(run / "run.json", _manifest(dataset={"name": SCRIPT},
                                       model={"label": SCRIPT, "spec": "openai/x"}))
    _write(run / "summary.json", {"protocols": {SCRIPT: {"accuracy": {"accuracy": 1, "n": 1}}}})
    page = write_index(root, update_reports=False).path.read_text(encoding="utf-8")
    assert SCRIPT not in page and IMG not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "http://" not in page and "https://" not in page


def test_real_runs_are_listed_with_their_own_figures(real):
    root, results = real
    runs = _by_name(list_runs(root))
    assert set(runs) == {"agree", "bench", "broken", "judge", "jury", "jury/judges/a",
                         "jury/judges/b"}
    bench, summary = runs["bench"], results["bench"].summary
    assert bench.results == " · ".join(f"{name} {100 * p.accuracy.accuracy:.1f}%"
                                       for name, p in summary.protocols.items())
    assert bench.model_calls == results["bench"].totals.model_calls > 0
    assert (bench.kind, bench.judge, bench.status) == ("bench", "simulated", "complete")
    assert bench.report == root / "bench" / "report.html" and bench.report_current

    judge, js = runs["judge"], results["judge"].summary
    o = js.outcome
    assert judge.results == (f"{js.n_items} items · flips {100 * js.flip_rate:.1f}% · "
                             f"candidate 0 {o.won} won, {o.lost} lost, {o.tied} tied")
    assert judge.kind == "judge" and judge.dataset == "pairs"

    jury = runs["jury"]
    assert jury.kind == "jury" and jury.status == "complete" and jury.simulated
    assert jury.model_calls == sum(r.totals.model_calls
                                   for r in results["jury"].judges.values())
    assert runs["agree"].results == "c α 0.743"  # the published value
    assert runs["broken"].status == "unreadable"


def test_recorded_scores_name_the_rules_as_jurybox_score_does():
    from jurybox.reports.index_results import recorded_results

    # the demo's rescoring: 87 correct of 270 under JudgeBench's rule with either parse rule
    summary = {"scores": [{"rule": "unanimous", "accuracy": 87 / 270},
                          {"rule": "last", "accuracy": 87 / 270}]}
    assert recorded_results(summary) == "arena-hard 32.2% · last-token 32.2%"


def test_judge_results_count_the_labelled_items_judged_and_keep_every_part():
    from jurybox.reports.index_results import judge_results

    # 33 items, 4 failed; 30 labelled, of which 24 were decided: 17 / 24 = 70.8%
    summary = {"judge": {"protocol": "apoc", "n_items": 33, "n_failed": 4, "n_labelled": 30,
                         "flip_rate": 0.517, "outcome": {"won": 17, "lost": 7, "tied": 5}},
               "protocols": {"apoc": {"accuracy": {"accuracy": 17 / 24, "n": 24}}}}
    assert judge_results(summary) == ("33 items · 4 failed · flips 51.7% · 70.8% on 24 "
                                      "labelled · candidate 0 17 won, 7 lost, 5 tied")


def test_a_ranking_and_a_selective_score_are_listed_with_their_figures(tmp_path):
    # break-it D2: every rank run, the demo's too, was listed "unreadable"
    _write(tmp_path / "rank" / "summary.json", {
        "kind": "rank", "source": "examples/systems.jsonl", "judge": "sim", "simulated": True,
        "n_failed": 2, "systems": [{"name": "truthful", "bt": 1120.4},
                                   {"name": "sometimes", "bt": 1000.0},
                                   {"name": "misled", "bt": None}]})
    _write(tmp_path / "sel" / "summary.json", {"selective": {"target": 0.85, "sets": [
        {"test": {"coverage": 0.55}}, {"test": {"coverage": 0.0}}, {"test": {"coverage": 0.6}}]}})
    runs = _by_name(list_runs(tmp_path))
    rank = runs["rank"]
    assert (rank.kind, rank.dataset, rank.judge, rank.simulated) == (
        "rank", "systems.jsonl", "simulated", True)
    assert (rank.status, rank.note) == ("partial", "2 pairs without a decision")
    assert rank.results == "truthful 1120 · sometimes 1000 · misled —"
    sel = runs["sel"]
    assert (sel.kind, sel.status) == ("score", "complete")
    assert sel.results == "target 85% · 2 of 3 sets certified · coverage 57.5%"
