"""index.html in a real headless browser: no console message, every link resolves to a file
of the folder, hostile names are text (no injected element), and the hash filters work."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

import pytest

from jurybox.reports import write_index
from tests.reports.browser import render, screenshot
from tests.reports.index_runs import make_runs
from tests.reports.test_report_browser import BROWSER, IMG, SCRIPT, _parse, needs_browser


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    runs = make_runs(tmp_path_factory.mktemp("index-browser"))
    hostile = runs.root / IMG  # a folder name is data too; so are the files' texts
    hostile.mkdir()
    (hostile / "run.json").write_text(json.dumps({
        "kind": "judge", "status": "complete", "dataset": {"name": SCRIPT},
        "model": {"label": SCRIPT}}))
    (hostile / "summary.json").write_text(json.dumps({"kind": "judge", "judge": {
        "n_items": 3, "protocol": SCRIPT}}))
    return write_index(runs.root).path


def _rows(dom) -> list[dict[str, str | None]]:
    return [a for t, a in dom.elements if t == "tr" and "data-kind" in a]


def test_the_page_without_script_shows_every_run(index):
    page = index.read_text(encoding="utf-8")
    assert SCRIPT not in page and IMG not in page
    assert "http://" not in page and "https://" not in page
    dom = _parse(page)
    assert len(_rows(dom)) == 8 and not any("hidden" in a for a in _rows(dom))
    form = next(a for t, a in dom.elements if a.get("id") == "filters")
    assert "hidden" in form  # the filters appear with the script only


@needs_browser
def test_index_in_headless_chromium(index, tmp_path):
    assert BROWSER is not None
    probe = index.with_name("probe.html")  # beside index.html: the same relative links
    probe.write_text(index.read_text(encoding="utf-8").replace(
        "<head>", "<head><script>window.alert = function (m) { document.documentElement"
        ".setAttribute('data-alert', String(m)); };</script>", 1), encoding="utf-8")
    loaded = render(BROWSER, probe.as_uri(), tmp_path / "profile")
    assert loaded.console == []
    dom = _parse(loaded.dom)
    assert "data-alert" not in dict(dom.elements[0][1])
    assert "hidden" in next(a for t, a in dom.elements if a.get("id") == "js-errors")
    assert "hidden" not in next(a for t, a in dom.elements if a.get("id") == "filters")
    text = "".join(dom.text)
    assert SCRIPT in text and IMG in text  # shown as text
    assert not any(t == "img" for t, _ in dom.elements)
    assert sum(t == "script" for t, _ in dom.elements) == 2  # the probe's and the page's
    assert "showing 8 of 8" in text
    links = [a["href"] or "" for t, a in dom.elements if t == "a" and "href" in a]
    assert len(links) == 7  # every run but the damaged one has a report
    for href in links:
        assert ":" not in href and not href.startswith("/")  # relative, no scheme
        assert (index.parent / unquote(href)).is_file(), href


@needs_browser
@pytest.mark.parametrize("hash_, kinds", [("#kind=judge", {"judge"}),
                                          ("#status=unreadable", {"unknown"}),
                                          ("#q=jury", {"jury", "judge"})])
def test_filters_in_the_hash(index, tmp_path, hash_, kinds):
    assert BROWSER is not None
    loaded = render(BROWSER, index.as_uri() + hash_, tmp_path / "profile")
    assert loaded.console == []
    shown = [a for a in _rows(_parse(loaded.dom)) if "hidden" not in a]
    assert shown and {a["data-kind"] for a in shown} == kinds
    expected = {"#kind=judge": 4, "#status=unreadable": 1, "#q=jury": 3}[hash_]
    assert len(shown) == expected
    assert f"showing {expected} of 8" in "".join(_parse(loaded.dom).text)


@needs_browser
def test_sorting_by_a_column(index, tmp_path):
    """A probe clicks the calls header twice (descending), then the run header once."""
    assert BROWSER is not None
    probe = index.with_name("sorted.html")
    click = ("<script>var b = document.querySelectorAll('#runs th button');"
             "b[6].click(); b[6].click(); document.body.setAttribute('data-calls', "
             "Array.prototype.map.call(document.querySelectorAll('#runs tbody tr'), "
             "function (r) { return r.cells[6].getAttribute('data-key'); }).join(','));"
             "b[0].click();</script></body>")
    probe.write_text(index.read_text(encoding="utf-8").replace("</body>", click, 1),
                     encoding="utf-8")
    loaded = render(BROWSER, probe.as_uri(), tmp_path / "profile")
    assert loaded.console == []
    dom = _parse(loaded.dom)
    body = next(a for t, a in dom.elements if t == "body")
    calls = [int(k) if k else None for k in (body["data-calls"] or "").split(",")]
    known = [c for c in calls if c is not None]
    assert known == sorted(known, reverse=True) and len(known) >= 5  # most calls first
    assert calls[len(known):] == [None] * (len(calls) - len(known))  # no figure: last
    names = [a.get("data-name") for a in _rows(dom)]
    assert names == sorted(names)  # then by run name, ascending


@needs_browser
def test_screenshot(index, tmp_path):
    import os

    assert BROWSER is not None
    target = Path(os.environ.get("JURYBOX_INDEX_SCREENSHOT") or tmp_path / "index.png")
    png = screenshot(BROWSER, index.as_uri(), target, tmp_path / "p", size="1280,900")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
