"""The progress line at 80 columns: items done/total, calls/s, failures so far, ETA, uncut."""

import io

import pytest
from rich.console import Console

from jurybox.cli._progress import BenchProgress, clock_text
from jurybox.runner.records import CallRecord, Usage


def _record(**fields):
    return CallRecord(key="k", meta={}, **fields)


def _drawn(width, *, total=200, resumed=0, items=120, seconds=10.0):
    now = [0.0]
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    progress = BenchProgress(console=console, clock=lambda: now[0])
    progress.on_start(total, resumed)
    for _ in range(139):
        progress.on_call(_record(attempts=1, outcome="ok",
                                 usage=Usage(prompt_tokens=90, completion_tokens=10)))
    progress.on_call(_record(attempts=3, outcome="api", error="HTTP 500"))  # 3 attempts
    progress.on_call(_record(attempts=1, outcome="parse", parse_error="no JSON"))
    progress.on_call(_record(attempts=1, outcome=None, parse_error="no JSON"))  # re-asked
    progress.on_call(_record(cached=True, outcome="refusal"))  # a cached refusal: failed
    progress.on_call(_record(cached=True, outcome="ok"))
    for _ in range(items):
        progress.on_item(object())
    now[0] = seconds
    console.print(progress.progress.get_renderable())
    return console.export_text()


def test_the_line_at_80_columns_names_every_field_uncut():
    line = _drawn(80)
    # 139 + 3 + 1 + 1 = 144 HTTP attempts in 10 s; failed: the api, parse and cached refusal
    # (the re-asked parse failure is not one yet); ETA: 80 items left at 120 per 10 s = 6.67 s
    assert line.endswith("  120/200 items  14.4 calls/s  3 failed  ETA 0:00:07\n")
    assert line.startswith("judging ") and "━" in line and "…" not in line
    assert len(line.rstrip("\n")) < 80 and line.count("\n") == 1  # the last column free


def test_a_resumed_run_rates_only_this_session_and_a_done_run_says_how_long():
    # 50 done before, 100 this session in 10 s: 50 left take 5 s (not 50 / 150 per 10 s)
    assert "150/200 items  14.4 calls/s  3 failed  ETA 0:00:05" in _drawn(80, resumed=50,
                                                                           items=100)
    assert "200/200 items  14.4 calls/s  3 failed  took 0:00:10" in _drawn(80, items=200)


def test_narrow_terminals_drop_the_bar_first_then_wrap_wide_ones_show_more():
    assert _drawn(64) == "judging  120/200 items  14.4 calls/s  3 failed  ETA 0:00:07\n"
    narrow = _drawn(50)
    assert "…" not in narrow and " ".join(narrow.split()) == (
        "judging 120/200 items 14.4 calls/s 3 failed ETA 0:00:07")
    wide = _drawn(140)
    # tokens: 139 calls x 100
    assert wide.rstrip().endswith("ETA 0:00:07  2 cached  13,900 tokens") and "━" in wide


@pytest.mark.parametrize("seconds, shown", [(None, "-:--:--"), (0, "0:00:00"),
                                             (6.2, "0:00:07"), (3725, "1:02:05")])
def test_clock_text(seconds, shown):
    assert clock_text(seconds) == shown
