"""report.html in a real headless browser: it loads without console errors, the item
browser's filters work, and a candidate carrying HTML payloads is shown as text."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from jurybox.compare import BenchConfig, run_bench
from jurybox.reports import RunReader
from jurybox.run import RunOptions
from jurybox.sim import SimConfig
from tests.conftest import FAST_RETRY
from tests.reports.browser import find_chromium, render, screenshot

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"
BROWSER = find_chromium()
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no headless browser installed (apt-get install chromium); "
                            ".ci/run installs it")
#: Where the screenshot goes when JURYBOX_REPORT_SCREENSHOT names a file (for a person to
#: look at), else into the test's tmp folder.
SCREENSHOT_ENV = "JURYBOX_REPORT_SCREENSHOT"


class _Dom(HTMLParser):
    """Elements, their attributes and text, from a dumped DOM."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.items: list[dict[str, str | None]] = []
        self.text: list[str] = []
        self._tag = ""

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        self._tag = tag
        if tag == "article" and "item" in (attributes.get("class") or ""):
            self.items.append(attributes)

    def handle_data(self, data):
        if self._tag not in ("script", "style"):
            self.text.append(data)


def _parse(html: str) -> _Dom:
    dom = _Dom()
    dom.feed(html)
    return dom


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    data = folder / "payload.jsonl"
    rows = [{"id": f"p{i}", "prompt": f"Which answer to question {i} is right?",
             "candidates": [f"right answer {i}", f"wrong answer {i} {SCRIPT}",
                            f"other answer {i} {IMG}", f"plain answer {i}"], "gold": 0}
            for i in range(8)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = folder / "run"
    run_bench(BenchConfig(dataset=str(data), model="sim", k=4, sim=SimConfig(bias="primacy")), out,
              options=RunOptions(cache_path=None, retry=FAST_RETRY, concurrency=4))
    return out


def test_report_is_written_self_contained_and_escaped(run_dir):
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page  # no external URL at all
    assert SCRIPT not in page and IMG not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    # without JavaScript every item is there and visible (no hidden attribute is written)
    dom = _parse(page)
    links = [a[k] for _, a in dom.elements for k in ("src", "href", "action") if k in a]
    assert links and all((v or "").startswith("#") for v in links)  # in-page anchors only
    assert not any(t in ("link", "img", "iframe", "object") for t, _ in dom.elements)
    assert len(dom.items) == 8 and not any("hidden" in a for a in dom.items)


@needs_browser
def test_report_in_headless_chromium(run_dir, tmp_path):
    assert BROWSER is not None
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    # instrument a copy: an alert would mark the page instead of blocking it
    probe = tmp_path / "report.html"
    probe.write_text(page.replace("<head>", "<head><script>window.alert = function (m) { "
                                  "document.documentElement.setAttribute('data-alert', "
                                  "String(m)); };</script>", 1), encoding="utf-8")
    flags = {v.item_id: set(v.flags.names()) for v in RunReader(run_dir).iter_items()}
    flipped = {i for i, f in flags.items() if "flipped" in f}
    assert 0 < len(flipped) < len(flags), flags  # the filter has something to hide

    loaded = render(BROWSER, probe.as_uri(), tmp_path / "profile")
    assert loaded.console == []  # no error, no uncaught exception, nothing logged
    dom = _parse(loaded.dom)
    root = dict(dom.elements[0][1]) if dom.elements else {}
    assert "data-alert" not in root
    errors = next(a for t, a in dom.elements if a.get("id") == "js-errors")
    assert "hidden" in errors
    text = "".join(dom.text)
    assert SCRIPT in text and IMG in text  # shown as text
    assert not any(t == "img" for t, _ in dom.elements)  # no injected element
    assert sum(t == "script" for t, _ in dom.elements) == 2  # the probe's and the page's
    assert all("hidden" not in a for a in dom.items)
    assert f"showing {len(flags)} of {len(flags)}" in text
    # the totals panel: run.json's totals, as the browser shows them
    totals = json.loads((run_dir / "run.json").read_text())["totals"]
    assert f"model calls{totals['model_calls']:,}" in text.replace("\n", "")
    assert f"prompt tokens{totals['prompt_tokens']:,}" in text.replace("\n", "")

    filtered = _parse(render(BROWSER, probe.as_uri() + "#filter=flipped",
                             tmp_path / "profile").dom)
    shown = {a["data-item"] for a in filtered.items if "hidden" not in a}
    assert shown == flipped
    assert f"showing {len(flipped)} of {len(flags)}" in "".join(filtered.text)

    either = _parse(render(BROWSER, probe.as_uri() + "#filter=fixed:pcf,regressed:pcf",
                           tmp_path / "profile").dom)
    shown = {a["data-item"] for a in either.items if "hidden" not in a}
    assert shown == {i for i, f in flags.items() if f & {"fixed:pcf", "regressed:pcf"}}


@needs_browser
def test_warnings_in_the_totals_panel_are_text(run_dir, tmp_path):
    """A warning is shown as the terminal printed it, as text: summary.json edited to carry
    markup (warnings come from the run, but the file is the user's)."""
    import shutil

    from jurybox.reports import write_report

    assert BROWSER is not None
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    summary = json.loads((copy / "summary.json").read_text())
    summary["warnings"] = [f"the judge said {IMG} and {SCRIPT}"]
    summary["failed_units"] = {"units": 1, "api": 1}
    (copy / "summary.json").write_text(json.dumps(summary))
    loaded = render(BROWSER, write_report(copy).as_uri(), tmp_path / "profile")
    assert loaded.console == []
    dom = _parse(loaded.dom)
    text = "".join(dom.text)
    assert f"warning: the judge said {IMG} and {SCRIPT}" in text
    assert (f"partial: 1 of {summary['n_items']} items have no decision. 1 from API errors: "
            f"rerun the same command to judge them again.") in text
    assert not any(t == "img" for t, _ in dom.elements)
    assert sum(t == "script" for t, _ in dom.elements) == 1  # the page's own


@needs_browser
def test_a_malformed_filter_in_the_url_is_no_script_error(run_dir, tmp_path):
    assert BROWSER is not None
    n_items = len(RunReader(run_dir).item_ids)
    # "%E0" is no UTF-8 escape: decodeURIComponent throws URIError
    loaded = render(BROWSER, (run_dir / "report.html").as_uri() + "#filter=flipped%E0",
                    tmp_path / "profile")
    assert loaded.console == []
    dom = _parse(loaded.dom)
    assert "hidden" in next(a for t, a in dom.elements if a.get("id") == "js-errors")
    # no such flag: nothing matches, and the counter says so
    assert f"showing 0 of {n_items}" in "".join(dom.text)


@needs_browser
def test_screenshot(run_dir, tmp_path):
    import os

    assert BROWSER is not None
    target = Path(os.environ.get(SCREENSHOT_ENV) or tmp_path / "report.png")
    png = screenshot(BROWSER, (run_dir / "report.html").as_uri(), target, tmp_path / "p")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


@pytest.fixture(scope="module")
def judge_runs(tmp_path_factory) -> dict[str, Path]:
    """Judge runs (no gold) with the payloads: PCF on 3 candidates, both orders on pairs."""
    from jurybox.judging import judge

    folder = tmp_path_factory.mktemp("judge-report")
    listwise = [{"id": f"j{i}", "prompt": f"Best reply to message {i}?",
                 "candidates": [f"reply {i}", f"{SCRIPT} reply {i}", f"{IMG} reply {i}"]}
                for i in range(4)]
    pairs = [{"id": f"pair{i}", "prompt": f"Better summary {i}?",
              "candidates": [f"summary {i} {SCRIPT}", f"summary {i} {IMG}"]} for i in range(3)]
    options = RunOptions(cache_path=None, retry=FAST_RETRY, concurrency=4)
    judge(listwise, model="sim", protocol="pcf", k=3, out=folder / "pcf", options=options)
    judge(pairs, model="sim", protocol="both-orders", out=folder / "pairs", options=options)
    return {"pcf": folder / "pcf", "pairs": folder / "pairs"}


@pytest.mark.parametrize("kind", ["pcf", "pairs"])
def test_judge_run_report_is_self_contained_and_escaped(judge_runs, kind):
    page = (judge_runs[kind] / "report.html").read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page
    assert SCRIPT not in page and IMG not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    dom = _parse(page)
    assert len(dom.items) == (4 if kind == "pcf" else 3)
    # no gold: the summary claims no accuracy and no coverage
    assert "no accuracy is claimed" in page and "cover %" not in page
    assert not any(t in ("link", "img", "iframe", "object") for t, _ in dom.elements)


@needs_browser
@pytest.mark.parametrize("kind", ["pcf", "pairs"])
def test_judge_run_report_in_headless_chromium(judge_runs, kind, tmp_path):
    assert BROWSER is not None
    loaded = render(BROWSER, (judge_runs[kind] / "report.html").as_uri(), tmp_path / "profile")
    assert loaded.console == []
    dom = _parse(loaded.dom)
    text = "".join(dom.text)
    assert SCRIPT in text and IMG in text
    assert not any(t == "img" for t, _ in dom.elements)
    assert sum(t == "script" for t, _ in dom.elements) == 1  # the page's own
