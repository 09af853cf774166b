"""Unbounded inputs (issue 17): files that are endless, block or are huge, and numeric options
that would exhaust memory or time, are one-line errors before any call.

Reading /dev/zero or a FIFO without the fix would eat the machine's memory or hang, so those
cases run in a child process with an address-space limit and a timeout (a hang guard)."""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.compare import BenchConfig, prepare_bench
from jurybox.cost.plan import _longest_common_prefix
from jurybox.datasets.validate import read_bounded
from jurybox.errors import ConfigError, DataError
from jurybox.protocols import PCFProtocol
from jurybox.protocols.permutations import MAX_K, permutation_set
from jurybox.protocols.templates import MAX_TEMPLATE_BYTES, load_template
from jurybox.rubrics.model import MAX_RUBRIC_BYTES, load_rubric

from ..cli_checks import one_line_error

runner = CliRunner()
SRC = Path(__file__).resolve().parents[2] / "src"
TEMPLATE = "Judge.\n{question}\n{candidates}\n"


def _guarded(args: list[str]) -> subprocess.CompletedProcess:
    """``python -m jurybox ARGS`` with 1.5 GB of address space and 60 s at most."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))
    return subprocess.run([sys.executable, "-m", "jurybox", *args], capture_output=True,
                          text=True, timeout=60, preexec_fn=limit,
                          env={**os.environ, "PYTHONPATH": str(SRC)})


def _one_line(done: subprocess.CompletedProcess, *fragments: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "fifo", "folder"])
def test_a_template_that_is_not_a_regular_file_is_refused_unread(tmp_path, fifo, device):
    path = {"fifo": str(fifo), "folder": str(tmp_path)}.get(device, device)
    if not os.path.exists(path):
        pytest.skip(f"no {path} here")
    done = _guarded(["bench", "truthfulqa", "--limit", "2", "--no-cache", "--template", path,
                     "--out", str(tmp_path / "run")])
    kind = "a directory" if device == "folder" else "a device, FIFO or socket"
    _one_line(done, f"{path}: not a file ({kind}); give a template file")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("device", ["/dev/zero", "fifo"])
def test_a_rubric_that_is_not_a_regular_file_is_refused_unread(tmp_path, fifo, device):
    path = str(fifo) if device == "fifo" else device
    done = _guarded(["personalize", "squality", "--rubric", path, "--no-cache", "--out",
                     str(tmp_path / "run")])
    _one_line(done, f"{path}: not a file (a device, FIFO or socket); give a rubric file")


def test_a_huge_template_is_refused_naming_its_size_and_the_limit(tmp_path):
    big = tmp_path / "big.txt"
    with big.open("wb") as fh:
        fh.truncate(3 << 30)  # 3 GiB, sparse: no disk used
    result = runner.invoke(app, ["bench", "truthfulqa", "--limit", "2", "--no-cache",
                                 "--template", str(big), "--out", str(tmp_path / "run")])
    one_line_error(result, f"{big}: the template is 3,221,225,472 bytes; at most 1,048,576 "
                           f"bytes (1 MiB)")
    # the limit is on bytes read; a file at the limit is read, then its text is checked
    big.write_bytes(b"x" * MAX_TEMPLATE_BYTES)
    with pytest.raises(DataError, match="template has 1,048,576 characters; at most 100,000"):
        load_template(big)
    big.write_bytes(b"x" * (MAX_TEMPLATE_BYTES + 1))
    with pytest.raises(DataError, match="the template is 1,048,577 bytes; at most"):
        load_template(big)


def test_a_template_still_reads_as_before(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(TEMPLATE.replace("\n", "\r\n").encode())  # line ends as text mode read
    assert load_template(path) == TEMPLATE
    with pytest.raises(DataError, match="template file not found"):
        load_template(tmp_path / "none.txt")


def test_a_huge_rubric_is_refused_naming_its_size_and_the_limit(tmp_path):
    big = tmp_path / "rubric.yaml"
    with big.open("wb") as fh:
        fh.truncate(MAX_RUBRIC_BYTES + 1)
    with pytest.raises(DataError, match=r"rubric.yaml: the rubric is 4,194,305 bytes; at most "
                                        r"4,194,304 bytes \(4 MiB\)"):
        load_rubric(big)
    assert load_rubric("squality").dimensions  # the bundled ones still load


def test_a_file_that_grows_while_read_is_still_bounded(tmp_path, monkeypatch):
    path = tmp_path / "t.txt"
    path.write_bytes(b"x" * 5000)
    real = os.fstat

    class Small:  # the size at open; the file then grows (here: was larger all along)
        def __init__(self, st):
            self.st_mode, self.st_size = st.st_mode, 10

    monkeypatch.setattr(os, "fstat", lambda fd: Small(real(fd)))
    with pytest.raises(DataError, match="the template is more than 1,000 bytes; at most 1,000"):
        read_bounded(path, 1000, "template")
    assert read_bounded(path, 5000, "template") == b"x" * 5000


@pytest.mark.parametrize("option, value", [
    ("--concurrency", "1000000000"),  # grew to 2.7 GB and never finished
    ("--k", "100000000"),  # a dry run on a 26-candidate item passed 1 GB and never exited
    ("--attempts", "1000000000"),  # a dead endpoint: a run that never ends
    ("--timeout", "1e300"),
    ("--temperature", "1e308"),  # was accepted and sent to the judge
    ("--seed", str(10 ** 30)),  # was sent to the endpoint past int64
    ("--max-tokens", str(10 ** 30)),
    ("--sim-seed", str(2 ** 32)),
])
def test_numeric_options_have_upper_bounds(tmp_path, option, value):
    done = _guarded(["bench", "truthfulqa", "--limit", "2", "--no-cache", option, value,
                     "--out", str(tmp_path / "run")])
    _one_line(done, f"'{option}'", "less than or equal to")
    assert not (tmp_path / "run").exists()


def test_the_temperature_is_bounded_in_the_library_too():
    with pytest.raises(ConfigError, match="--temperature must be a number from 0 to 2, got 3.0"):
        prepare_bench(BenchConfig(dataset="truthfulqa", protocols=("direct",), temperature=3.0))
    with pytest.raises(ConfigError, match="--seed must be 0 to 4,294,967,295, got 4294967296"):
        prepare_bench(BenchConfig(dataset="truthfulqa", protocols=("direct",), seed=2 ** 32))
    with pytest.raises(ConfigError, match="--max-tokens must be 1 to 1,000,000, got 1000001"):
        prepare_bench(BenchConfig(dataset="truthfulqa", protocols=("direct",),
                                  max_tokens=1_000_001))


def test_a_price_past_any_list_price_is_refused(tmp_path):
    # 1e308 made every USD total inf
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "1",
                                 "--price-in", "1e308", "--price-out", "1", "--dry-run"])
    one_line_error(result, "--price-in must be a number from 0 to 10,000 (USD per million "
                           "tokens), got 1e+308")


def test_subset_on_data_that_is_not_rewardbench2_is_refused(tmp_path):
    result = runner.invoke(app, ["bench", "truthfulqa", "--subset", "Math", "--model", "sim",
                                 "--limit", "1", "--out", str(tmp_path / "run")])
    one_line_error(result, "--subset filters RewardBench 2 rows, and truthfulqa is truthfulqa "
                           "data")
    result = runner.invoke(app, ["bench", "rewardbench2-sample", "--subset", "Math",
                                 "--dry-run"])
    assert result.exit_code == 2 and "no items (subset filter 'Math')" in result.output


def test_personalize_seeds_are_bounded(tmp_path):
    done = _guarded(["personalize", "squality", "--rubric", "squality", "--seeds", "101",
                     "--no-cache", "--out", str(tmp_path / "run")])
    _one_line(done, "'--seeds'", "less than or equal to 100")


def test_k_is_bounded_in_the_library_too():
    with pytest.raises(ValueError, match="k must be at most 1,000 .*got 100,000,000"):
        PCFProtocol(k=10**8)
    with pytest.raises(ValueError, match="k must be at most 1,000, got 1,001"):
        permutation_set(tuple(range(26)), MAX_K + 1, seed=0, item_id="a")
    with pytest.raises(ConfigError, match="protocol 'pcf': k must be at most 1,000"):
        prepare_bench(BenchConfig(dataset="truthfulqa", protocols=("pcf",), k=10**8))
    assert len(permutation_set(tuple(range(26)), MAX_K, seed=0, item_id="a")) == MAX_K
    assert len(permutation_set(tuple(range(4)), MAX_K, seed=0, item_id="a")) == 24  # n!


def test_the_largest_k_dry_run_on_26_candidates_compares_each_order_twice(tmp_path,
                                                                          monkeypatch):
    # the shared-prefix estimate compared each order with every earlier one (K**2 / 2 =
    # 500,000 comparisons, 52 s at K = 1000); with neighbours in sorted order: two at most
    src = tmp_path / "c26.jsonl"
    src.write_text(json.dumps({"id": "a", "prompt": "q?",
                               "candidates": [f"candidate {i}" for i in range(26)]}) + "\n")
    from jurybox.cost import plan

    real, compared = plan._common_prefix_length, []
    monkeypatch.setattr(plan, "_common_prefix_length",
                        lambda a, b: compared.append(1) or real(a, b))
    result = runner.invoke(app, ["judge", str(src), "--model", "sim", "--k", str(MAX_K),
                                 "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "calls: 1,000 " in result.output
    assert 0 < len(compared) <= 2 * (MAX_K - 1)


def test_the_longest_common_prefix_with_sorted_neighbours_is_the_longest_with_any():
    rng = random.Random(7)
    for _ in range(300):
        words = sorted({"".join(rng.choice("ab") for _ in range(rng.randint(0, 6)))
                        for _ in range(rng.randint(1, 12))})
        text = "".join(rng.choice("ab") for _ in range(rng.randint(0, 6)))
        brute = max(len(os.path.commonprefix([text, w])) for w in words)
        assert _longest_common_prefix(text, words) == brute, (text, words)


@pytest.mark.parametrize("option, value", [("--ready-timeout", "inf"),  # OverflowError
                                           ("--threads", "1000000000"),
                                           ("--ctx", str(10 ** 12))])  # refused after 28 s
def test_serve_local_options_are_bounded(option, value):
    one_line_error(runner.invoke(app, ["serve-local", option, value]), f"'{option}'",
                   "less than or equal to")


def test_cache_and_no_cache_together_say_which_wins(tmp_path):
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "1",
                                 "--cache", str(tmp_path / "c.sqlite"), "--no-cache",
                                 "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "warning: --no-cache: the response cache" in result.output
    assert not (tmp_path / "c.sqlite").exists()


def test_a_failed_write_on_a_read_only_file_system_keeps_its_own_error(tmp_path, monkeypatch):
    # unlinking the temporary file failed too (EROFS) and replaced the write's error
    import errno
    import pathlib

    from jurybox.errors import RunWriteError
    from jurybox.judging.results import write_judgments

    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(pathlib.Path, "open", refuse)
    monkeypatch.setattr(os, "unlink", refuse)
    with pytest.raises(RunWriteError, match="cannot write .*judgments.jsonl.*: Read-only file "
                                            "system"):
        write_judgments([], tmp_path)
