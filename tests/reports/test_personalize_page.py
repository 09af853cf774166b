"""The personalize page carries what ``jurybox personalize`` prints: the alignment table's
cells, the paired sign test of personalized vs aggregate at each k, the reasoning-similarity
figure per judge and dimension, and the notes under them."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from typer.testing import CliRunner

from jurybox.cli import app

runner = CliRunner()
VERSUS = re.compile(r"personalized vs aggregate, k=(\d+): (\d+) units, closer (\d+), further "
                    r"(\d+), same (\d+); sign p (\S+); (mean \|error\| .*)$")
REASONING = re.compile(r"reasoning similarity vs rater agreement \((\S+), (\S+), (\d+) rater "
                       r"pairs\): (.*)$")


@pytest.fixture(scope="module")
def personalized(tmp_path_factory):
    """(run directory, the command's terminal lines)."""
    out = tmp_path_factory.mktemp("personalize") / "run"
    result = runner.invoke(app, ["personalize", "squality", "--rubric", "squality",
                                 "--dimensions", "overall,correctness", "--limit", "4",
                                 "--shots", "0,1,2", "--seeds", "1", "--no-cache",
                                 "--out", str(out)], terminal_width=400)
    assert result.exit_code == 0, result.output
    return out, [line.strip() for line in result.output.splitlines()]


def _rows(page: str, heading: str) -> list[list[str]]:
    """The table rows of the chart card titled ``heading``."""
    card = page[page.index(f"<h3>{heading}</h3>"):]
    card = card[:card.index("</div>\n<div id=\"chart-") if "<div id=\"chart-" in card
                else len(card)]
    return [[unescape(c) for c in re.findall(r"<td>([^<]*)</td>", row)]
            for row in re.findall(r"<tr>((?:<td>[^<]*</td>)+)</tr>", card)]


def test_the_sign_test_per_k_is_the_terminal_line(personalized):
    out, lines = personalized
    page = (out / "report.html").read_text(encoding="utf-8")
    printed = [VERSUS.match(line).groups() for line in lines if VERSUS.match(line)]
    assert [p[0] for p in printed] == ["1", "2"]  # k = 0 has no examples to personalize
    assert _rows(page, "personalized vs aggregate") == [list(p) for p in printed]


def test_reasoning_similarity_is_the_terminal_line(personalized):
    out, lines = personalized
    page = (out / "report.html").read_text(encoding="utf-8")
    printed = [REASONING.match(line).groups() for line in lines if REASONING.match(line)]
    summary = json.loads((out / "summary.json").read_text())
    assert len(printed) == len(summary["reasoning_similarity"]) == 4  # 2 judges x 2 dims
    assert _rows(page, "reasoning similarity vs rater agreement") == [list(p) for p in printed]


def test_alignment_cells_and_notes_are_the_terminal_ones(personalized):
    out, lines = personalized
    page = unescape((out / "report.html").read_text(encoding="utf-8"))
    rows = _rows((out / "report.html").read_text(encoding="utf-8"), "alignment with raters")
    summary = json.loads((out / "summary.json").read_text())
    assert len(rows) == len(summary["alignment"]) == 2 * 5  # zero-shot + 2 judges x 2 k, 2 dims
    # 4 raters: every mean is shown without a CI, and the note says why, as the terminal does
    first = summary["alignment"][0]
    assert rows[0][:4] == [first["condition"], first["dimension"], "4", str(first["units"])]
    assert rows[0][5] == f"{first['alpha']['mean']:.2f} (4)"
    note = next(line for line in lines if line.startswith("too few raters for a CI"))
    assert note[0].upper() + note[1:] + "." in page


def test_the_page_loads_in_headless_chromium_without_console_messages(personalized, tmp_path):
    from tests.reports.browser import find_chromium, render

    browser = find_chromium()
    if browser is None:
        pytest.skip("no headless browser installed (apt-get install chromium)")
    out, _ = personalized
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page  # self-contained
    loaded = render(browser, (out / "report.html").as_uri(), tmp_path / "profile")
    assert loaded.console == []
    dom = unescape(loaded.dom)
    assert "<h3>personalized vs aggregate</h3>" in dom and "<svg" in dom
