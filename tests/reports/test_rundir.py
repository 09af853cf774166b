"""The run directory under abuse: a second process, a dead one, corrupt files, unusable
paths, a full disk."""

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jurybox.errors import ConfigError, DataError
from jurybox.reports import RunDir, RunDirBusyError, previous_sessions, read_manifest

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
        from jurybox.reports import RunDir
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
    assert ("a", "p") not in run.done and ("b", "p") in run.done  # API failures: judged again
    run.append_item({"item_id": "a", "protocol": "p", "failed": False, "failures": []})
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
