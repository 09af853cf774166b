"""The run directory under abuse: a second process, a dead one, corrupt files, unusable
paths, a full disk."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jurybox.errors import ConfigError, DataError, RunWriteError
from jurybox.rundir import (RunDir, RunDirBusyError, RunLock, iter_records, previous_sessions,
                            read_manifest)

CONFIG = {"dataset": "d", "k": 3}


def test_a_second_opener_is_refused_naming_the_holder(tmp_path):
    first = RunDir(tmp_path / "run", CONFIG)
    with pytest.raises(RunDirBusyError, match=rf"in use by process {os.getpid()} on "):
        RunDir(tmp_path / "run", CONFIG)
    first.close()
    RunDir(tmp_path / "run", CONFIG).close()  # released: the next one gets it


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path):
    src = Path(__file__).resolve().parents[2] / "src"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(src)!r})
        from jurybox.rundir import RunDir
        run = RunDir({str(tmp_path / "run")!r}, {CONFIG!r})
        print("locked", flush=True)
        time.sleep(60)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(RunDirBusyError, match=rf"process {holder.pid} "):
            RunDir(tmp_path / "run", CONFIG)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    RunDir(tmp_path / "run", CONFIG).close()  # the dead holder's lock is free


@pytest.mark.parametrize("content, match", [
    ("null", "must be a JSON object written by jurybox, got NoneType"),
    ('{"schema": 1, "config": ', "is not valid JSON"),
    ("[1, 2]", "got list"),
])
def test_corrupt_run_json_names_the_file(tmp_path, content, match):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.json").write_text(content)
    with pytest.raises(DataError, match=match) as info:
        RunDir(tmp_path / "run", CONFIG)
    assert str(tmp_path / "run" / "run.json") in str(info.value)
    assert read_manifest(tmp_path / "none.json") is None
    assert previous_sessions(tmp_path / "run") == 0  # the simulator's fault epoch: lenient
    RunDir(tmp_path / "other", CONFIG).close()  # and the lock was released on the error


def test_items_line_without_item_id_names_file_line_and_field(tmp_path):
    run = RunDir(tmp_path / "run", CONFIG)
    run.append_item({"item_id": "a", "protocol": "direct", "credit": 1.0, "failed": False})
    run.close()
    with (tmp_path / "run" / "items.jsonl").open("a") as fh:
        fh.write(json.dumps({"protocol": "direct", "credit": 1.0}) + "\n")
    with pytest.raises(DataError, match=r"items.jsonl:2: field 'item_id': missing"):
        RunDir(tmp_path / "run", CONFIG)
    (tmp_path / "run" / "items.jsonl").write_text('{"item_id": "a"}\n')
    with pytest.raises(DataError, match=r"items.jsonl:1: field 'protocol': missing"):
        RunDir(tmp_path / "run", CONFIG)
    (tmp_path / "run" / "items.jsonl").write_text('nonsense\n{"item_id": "a"}\n')
    with pytest.raises(DataError, match=r"items.jsonl:1: not a JSON record"):
        RunDir(tmp_path / "run", CONFIG)


def test_out_that_is_a_file_or_under_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match=r"cannot use '.*f' as the run directory \(--out\): "
                                          r"File exists"):
        RunDir(tmp_path / "f", CONFIG)
    with pytest.raises(ConfigError, match=r"Not a directory"):
        RunDir(tmp_path / "f" / "run", CONFIG)


def test_out_that_is_not_writable(tmp_path):
    if os.geteuid() != 0:
        (tmp_path / "ro").mkdir(mode=0o500)
        target = tmp_path / "ro" / "run"
    elif Path("/sys").is_dir():  # root writes into read-only folders, not into sysfs
        target = Path("/sys/jurybox-test-run")
    else:
        pytest.skip("running as root without /sys: no folder it cannot write")
    with pytest.raises(ConfigError, match=r"as the run directory \(--out\): (Permission "
                                          r"denied|Operation not permitted)"):
        RunDir(target, CONFIG)


def test_failed_units_track_the_latest_decision(tmp_path):
    run = RunDir(tmp_path / "run", CONFIG)
    run.append_item({"item_id": "a", "protocol": "p", "failed": True, "failures": ["api"]})
    run.append_item({"item_id": "b", "protocol": "p", "failed": True, "failures": ["parse"]})
    run.append_item({"item_id": "b", "protocol": "q", "failed": True, "failures": ["refusal"]})
    assert run.failed_units() == (2, 1)  # units a and b; a from an API error
    # every failure is judged again (API errors are not cached; a cached unusable answer is
    # asked again)
    assert run.done == set()
    run.append_item({"item_id": "a", "protocol": "p", "failed": False, "failures": []})
    assert run.done == {("a", "p")}
    assert run.failed_units() == (1, 0)
    run.close()
    # a resume reads the same back; records before the "failed" field: credit None = failed
    with (tmp_path / "run" / "items.jsonl").open("a") as fh:
        fh.write(json.dumps({"item_id": "c", "protocol": "p", "credit": None}) + "\n")
    again = RunDir(tmp_path / "run", CONFIG)
    assert again.failed_units() == (2, 0)
    again.close()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_disk_is_a_one_line_error_and_loses_nothing(tmp_path):
    run = RunDir(tmp_path / "run", CONFIG)
    run.close()
    calls = tmp_path / "run" / "calls.jsonl"
    calls.unlink()
    calls.symlink_to("/dev/full")  # every write: ENOSPC
    run = RunDir(tmp_path / "run", CONFIG)
    with pytest.raises(OSError) as info:
        run.append_call({"key": "k"})
    assert info.value.errno == 28  # ENOSPC; the engine turns it into RunWriteError
    run.close()  # closing a log that cannot flush does not raise either


def test_a_setting_left_out_on_resume_is_named_not_blamed_on_an_old_version(tmp_path):
    first = RunDir(tmp_path / "run", {**CONFIG, "template": "T {question} {candidates}"})
    first.write_manifest({}, {"status": "complete"})
    first.close()
    with pytest.raises(ConfigError) as info:
        RunDir(tmp_path / "run", CONFIG)  # the same command without --template
    message = str(info.value)
    assert "differs in ['template']; ['template'] set in that run and not in this one" in message
    assert "not settings of this jurybox version" not in message


SRC = Path(__file__).resolve().parents[2] / "src"


def test_deleting_the_lock_file_mid_run_does_not_let_a_second_run_in(tmp_path):
    # issue 17: with the lock on RUN/lock, deleting that file let a second bench take a new
    # one: both exited 0, every item judged twice, the first session marked killed and
    # run.json's totals short of the calls logged. The lock is on the directory now.
    from typer.testing import CliRunner

    from jurybox.cli import app
    from jurybox.runner import Totals
    from tests.cli_checks import one_line_error

    out = tmp_path / "run"
    args = ["bench", "truthfulqa", "--model", "sim", "--limit", "30", "--k", "3",
            "--sim-latency-ms", "40", "--concurrency", "2", "--out", str(out), "--no-cache"]
    first = subprocess.Popen([sys.executable, "-m", "jurybox", *args],
                             env={**os.environ, "PYTHONPATH": str(SRC)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        calls = out / "calls.jsonl"
        for _ in range(3000):  # until it is judging (a hang guard, not a timing assert)
            if calls.exists() and len(calls.read_bytes().splitlines()) >= 4:
                break
            assert first.poll() is None, first.communicate()[1]
            time.sleep(0.02)
        (out / "lock").unlink()
        second = CliRunner().invoke(app, args)
        one_line_error(second, f"{out} is in use by another process", "another --out")
        _, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    manifest = read_manifest(out / "run.json")
    assert manifest is not None
    assert [s["status"] for s in manifest["sessions"]] == ["complete"]
    logged = Totals.of_records(iter_records(out / "calls.jsonl")).as_dict()
    assert manifest["totals"] == logged
    assert logged["jobs"] == len((out / "calls.jsonl").read_bytes().splitlines())
    keys = [(r["item_id"], r["protocol"]) for r in iter_records(out / "items.jsonl")]
    assert len(keys) == len(set(keys)) == 60  # no item judged twice


def test_a_second_lock_in_the_same_process_is_refused_too(tmp_path):
    (tmp_path / "run").mkdir()
    first = RunLock(tmp_path / "run")
    (tmp_path / "run" / "lock").unlink()
    with pytest.raises(RunDirBusyError, match="in use by another process"):
        RunLock(tmp_path / "run")
    assert not (tmp_path / "run" / "lock").exists()  # the refused one created nothing
    first.release()
    first.release()  # idempotent
    RunLock(tmp_path / "run").release()


def test_a_run_directory_replaced_mid_run_is_not_written_into(tmp_path):
    # rm -rf RUN while a run holds it, and a second run makes RUN anew: the first must not
    # write its run.json over the second's
    run = RunDir(tmp_path / "run", CONFIG)
    run.write_manifest({}, {"status": "running"})
    (tmp_path / "run").rename(tmp_path / "gone")
    other = RunDir(tmp_path / "run", CONFIG)
    other.write_manifest({"who": "other"}, {"status": "running"})
    with pytest.raises(RunWriteError, match=r"the run directory '.*run' was removed or "
                                            r"replaced while this run held it"):
        run.write_manifest({"who": "first"}, {"status": "complete"})
    with pytest.raises(RunWriteError):
        run.write_summary({})
    assert (read_manifest(tmp_path / "run" / "run.json") or {})["who"] == "other"
    run.close()
    other.close()


def test_where_a_directory_cannot_be_locked_the_lock_file_is_checked(tmp_path, monkeypatch,
                                                                      caplog):
    import errno
    import fcntl

    real = fcntl.flock

    def no_directory_locks(fd, op):
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(errno.EBADF, "Bad file descriptor")
        return real(fd, op)

    monkeypatch.setattr(fcntl, "flock", no_directory_locks)
    run = RunDir(tmp_path / "run", CONFIG)
    assert not run._lock.directory_locked and "cannot lock a directory" in caplog.text
    with pytest.raises(RunDirBusyError, match=rf"process {os.getpid()} "):
        RunDir(tmp_path / "run", CONFIG)  # the lock file still excludes
    run.write_manifest({}, {"status": "running"})
    (tmp_path / "run" / "lock").unlink()
    with pytest.raises(RunWriteError, match="the run directory's lock .* was removed"):
        run.write_manifest({}, {"status": "complete"})
    run.close()


def test_a_report_knows_whether_the_run_changed_since_it_was_written(tmp_path):
    from typer.testing import CliRunner

    from jurybox.cli import app
    from jurybox.reports import report_is_current

    out = tmp_path / "run"
    runner = CliRunner()
    assert runner.invoke(app, ["bench", "truthfulqa", "--limit", "3", "--k", "2", "--out",
                               str(out), "--no-cache"]).exit_code == 0
    assert report_is_current(out)  # the run wrote it last
    assert not report_is_current(out, max_items=5)  # another page
    page = (out / "report.html").read_bytes()
    result = runner.invoke(app, ["report", str(out)])
    assert "up to date" in result.output and (out / "report.html").read_bytes() == page
    with (out / "items.jsonl").open("a") as fh:  # the run changed: written again
        fh.write("")
    import os

    os.utime(out / "items.jsonl", ns=(1, 1))
    assert not report_is_current(out)
    assert "written:" in runner.invoke(app, ["report", str(out)]).output
    assert report_is_current(out)
    assert "written:" in runner.invoke(app, ["report", str(out), "--force"]).output


def test_a_folder_of_other_files_is_not_made_a_run_directory(tmp_path):
    # --out / (or a folder of notes) had run files written among the user's own
    from typer.testing import CliRunner

    from jurybox.cli import app

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "notes.txt").write_text("mine")
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "1",
                                      "--out", str(tmp_path / "notes")])
    assert result.exit_code == 2
    assert "holds other files and no jurybox run (e.g. 'notes.txt'); give --out a new or " \
           "empty folder" in result.output
    assert sorted(p.name for p in (tmp_path / "notes").iterdir()) == ["lock", "notes.txt"]
