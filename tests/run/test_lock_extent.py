"""The run directory stays locked until its last file is written: a second run into it, from
this process (a thread, a task) or another, can never write over a half-finished summary,
judgments or report."""

import asyncio
import json
import threading

import pytest

import jurybox.judging.run as judge_run
from jurybox.compare import BenchConfig, arun_bench, run_bench
from jurybox.judging import JudgeConfig, run_judge
from jurybox.rundir import RunDirBusyError, lock_run_dir
from jurybox.run import engine

CONFIG = BenchConfig(dataset="truthfulqa", limit=4, k=2)


def _try_lock(folder):
    try:
        lock_run_dir(folder).release()
    except RunDirBusyError as exc:
        return exc
    return "free"


def test_summary_judgments_and_report_are_written_under_the_lock(tmp_path, monkeypatch):
    seen = {}
    write_summary, write_judgments, write_report = (
        engine.RunDir.write_summary, judge_run.write_judgments, engine.write_report)

    def summary(self, value):
        seen["summary.json"] = _try_lock(self.path)
        write_summary(self, value)

    def report(folder):
        seen["report.html"] = _try_lock(folder)
        write_report(folder)

    def judgments(judged, folder):
        seen["judgments.jsonl"] = _try_lock(folder)
        return write_judgments(judged, folder)

    monkeypatch.setattr(engine.RunDir, "write_summary", summary)
    monkeypatch.setattr(engine, "write_report", report)
    monkeypatch.setattr(judge_run, "write_judgments", judgments)
    src = tmp_path / "items.jsonl"
    src.write_text(json.dumps({"id": "q", "prompt": "Q?", "candidates": ["a", "b"]}) + "\n")
    run_judge(JudgeConfig(input=str(src), model="sim", k=2), tmp_path / "run")
    assert set(seen) == {"summary.json", "judgments.jsonl", "report.html"}
    for name, outcome in seen.items():
        assert isinstance(outcome, RunDirBusyError), (name, outcome)
        assert "(this process: another call judging into it, since " in str(outcome)
    assert _try_lock(tmp_path / "run") == "free"  # and released at the end
    assert (tmp_path / "run" / "judgments.jsonl").exists()


def test_threads_and_tasks_racing_run_bench_into_one_folder(tmp_path):
    outcomes = []
    barrier = threading.Barrier(3)

    def blocking():
        barrier.wait()
        try:
            outcomes.append(run_bench(CONFIG, tmp_path / "run").status)
        except RunDirBusyError as exc:
            outcomes.append(type(exc))

    def awaiting():
        async def two():
            barrier.wait()
            return await asyncio.gather(*(arun_bench(CONFIG, tmp_path / "run")
                                          for _ in range(2)), return_exceptions=True)
        outcomes.extend(r.status if hasattr(r, "status") else type(r)
                        for r in asyncio.run(two()))

    threads = [threading.Thread(target=blocking), threading.Thread(target=blocking),
               threading.Thread(target=awaiting)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    # every call either ran to the end or was refused in one line; the folder holds one run
    assert len(outcomes) == 4 and set(outcomes) <= {"complete", RunDirBusyError}, outcomes
    assert "complete" in outcomes
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["status"] == "complete"
    assert not list((tmp_path / "run").glob("*.tmp"))


def test_a_lock_given_by_the_caller_is_left_to_the_caller(tmp_path):
    lock = lock_run_dir(tmp_path / "run")
    try:
        folder = tmp_path / "run"
        run = engine.RunDir(folder, {"k": 1}, lock=lock)
        run.close()
        assert isinstance(_try_lock(folder), RunDirBusyError)  # still the caller's
        with pytest.raises(ValueError, match="is not"):
            engine.RunDir(tmp_path / "other", {"k": 1}, lock=lock)
    finally:
        lock.release()
    assert _try_lock(tmp_path / "run") == "free"
