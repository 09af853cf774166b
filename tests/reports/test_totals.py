"""The report's totals and warnings are what the terminal printed: a priced, partial run
resumed once, its two sessions' terminal lines against the page's session rows; the run's
sums against the page's figures; the partial and spent lines word for word."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from typer.testing import CliRunner

from jurybox.cli import app

runner = CliRunner()

#: The terminal's totals line after a run (cli/_tables.py).
TOTALS_LINE = re.compile(r"model calls this run: (\d+)  cache hits: (\d+)  retries: (\d+)  "
                         r"re-asks: (\d+)  failed judgments: (\d+)  tokens: ([\d,]+)")


def _bench(out):
    # one attempt per call, 20% injected 500s and 10% malformed answers: retries are none,
    # re-asks and failed judgments of two kinds some, and some items are left without a
    # decision (partial); a price makes the run priced
    return runner.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "24",
                               "--k", "3", "--attempts", "1", "--sim-faults",
                               "rate_500=0.2,rate_malformed=0.1", "--price-in", "0.15",
                               "--price-out", "0.6", "--no-cache", "--out", str(out)])


@pytest.fixture(scope="module")
def resumed(tmp_path_factory):
    """(run directory, terminal output of session 1, of session 2)."""
    out = tmp_path_factory.mktemp("totals") / "run"
    first, second = _bench(out), _bench(out)
    assert first.exit_code == 3 and second.exit_code in (0, 3), (first.output, second.output)
    return out, first.output, second.output


def _figures(page: str) -> dict[str, str]:
    panel = page[page.index('<section id="totals">'):]
    panel = panel[:panel.index("</section>")]
    return {unescape(k): unescape(v) for k, v in
            re.findall(r"<div><dt>([^<]*)</dt><dd>([^<]*)</dd></div>", panel)}


def _session_rows(page: str) -> list[list[str]]:
    panel = page[page.index('<section id="totals">'):]
    panel = panel[:panel.index("</section>")]
    return [re.findall(r"<td>([^<]*)</td>", row)
            for row in re.findall(r"<tr>((?:<td>[^<]*</td>)+)</tr>", panel)]


def test_each_session_row_is_what_the_terminal_printed_at_its_end(resumed):
    out, *outputs = resumed
    page = (out / "report.html").read_text(encoding="utf-8")
    rows = _session_rows(page)
    assert [r[0].split(",")[0] for r in rows] == ["session 1", "session 2", "run"]
    printed = [TOTALS_LINE.search(o).groups() for o in outputs]
    for row, line in zip(rows, printed):
        # columns: model calls, cache hits, retries, re-asks, failed judgments (by kind),
        # tokens
        calls, hits, retries, reasks, failed, tokens = line
        assert row[3:7] == [calls, hits, retries, reasks]
        assert row[7].split(" ")[0] == failed and row[8] == tokens
    # the run row and the figures: the sums of the two sessions' lines
    sums = [sum(int(line[i].replace(",", "")) for line in printed) for i in range(6)]
    assert [int(c.split(" ")[0].replace(",", "")) for c in rows[2][3:9]] == sums
    figures = _figures(page)
    assert [int(figures[k].split(" ")[0].replace(",", "")) for k in (
        "model calls", "cache hits", "retries", "re-asks", "failed judgments", "tokens")] == sums


def test_figures_equal_run_json_and_the_cost_is_summary_json(resumed):
    out, _, second = resumed
    manifest = json.loads((out / "run.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    figures = _figures((out / "report.html").read_text(encoding="utf-8"))
    t = manifest["totals"]
    kinds = ", ".join(f"{k} {v}" for k, v in t["failures"].items() if v)
    assert figures["failed judgments"] == f"{sum(t['failures'].values())} ({kinds})"
    assert figures["prompt tokens"] == f"{t['prompt_tokens']:,}"
    assert figures["prefix-cached tokens"] == f"{t['cached_tokens']:,}"
    assert figures["USD"] == f"{summary['cost']['usd']:,.4f}"
    spent = next(line for line in second.splitlines() if line.startswith("spent:"))
    assert spent in unescape((out / "report.html").read_text(encoding="utf-8"))


def test_the_partial_line_is_on_the_page_word_for_word(resumed):
    out, _, second = resumed
    page = unescape((out / "report.html").read_text(encoding="utf-8"))
    partial = [line for line in second.splitlines() if line.startswith("partial:")]
    summary = json.loads((out / "summary.json").read_text())
    assert bool(partial) == bool(summary["failed_units"]["units"])
    for line in partial:
        assert f'<p class="note warn">{line}</p>' in page


def test_a_run_without_price_or_problems_says_so(tmp_path):
    out = tmp_path / "run"
    done = runner.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "3", "--k",
                               "2", "--no-cache", "--out", str(out)])
    assert done.exit_code == 0, done.output
    page = (out / "report.html").read_text(encoding="utf-8")
    assert _figures(page)["USD"] == "0 (simulated)"
    assert 'class="note warn"' not in page
    assert _session_rows(page) == []  # one session: no session table
