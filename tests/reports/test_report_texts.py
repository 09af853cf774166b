"""report.html stores each distinct text once (issue 17: 50 items of 100 kB of candidates at
K = 6 gave a 36 MB page, every prompt written out in full), and the prompts the page puts
together are exactly the recorded ones."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from jurybox.compare import BenchConfig, run_bench
from jurybox.rundir import read_jsonl
from jurybox.reports.page_texts import PageTexts, dom_safe
from jurybox.run import RunOptions
from tests.conftest import FAST_RETRY
from tests.reports.browser import find_chromium, render

BROWSER = find_chromium()
PAYLOAD = "<script>alert(1)</script> & \"quotes\" </pre> [[end candidate A 00]]"


def _long(i: int, j: int) -> str:
    return f"candidate {j} of item {i}: " + " ".join(f"word{i}-{j}-{w}" for w in range(900))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("texts")
    rows = []
    for i in range(3):
        candidates = [_long(i, j) for j in range(4)]
        candidates[1] += " " + PAYLOAD  # escaped in prompts ([[ -> [ [): stored apart
        candidates[2] = "\n" + candidates[2]  # a <pre> drops a leading newline
        candidates[3] = candidates[3].replace("-3-5 ", "-3-5\r\n")  # CR: read as LF in HTML
        rows.append({"id": f"t{i}", "prompt": f"Which of these is best, {i}?",
                     "candidates": candidates, "gold": 0})
    data = folder / "long.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = folder / "run"
    run_bench(BenchConfig(dataset=str(data), model="sim", k=4), out,
              options=RunOptions(cache_path=None, retry=FAST_RETRY, concurrency=4))
    return out


class _Page(HTMLParser):
    """The table, the texts shown with data-t, and every prompt's data-seg, in page order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.table: list[str | None] = []
        self.shown: dict[int, str] = {}
        self.prompts: list[tuple[str, str]] = []  # (data-seg, text already in the element)
        self._open: list[tuple[str, dict[str, str | None], list[str]]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "page-texts":
            self.table = json.loads(a["data-texts"] or "[]")
        if tag == "pre":
            self._open.append((tag, a, []))

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data)

    def handle_endtag(self, tag):
        if tag == "pre" and self._open:
            _, a, text = self._open.pop()
            if a.get("data-t"):
                self.shown[int(a["data-t"] or 0)] = "".join(text)
            if "data-seg" in a:
                self.prompts.append((a["data-seg"] or "", "".join(text)))


def _parsed(run_dir: Path) -> _Page:
    page = _Page()
    page.feed((run_dir / "report.html").read_text(encoding="utf-8"))
    return page


def test_each_candidate_text_is_in_the_page_once(run_dir):
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    texts = [c for r in read_jsonl(run_dir.parent / "long.jsonl") for c in r["candidates"]]
    for text in texts:  # before: shown once, and once more in each of its 4 prompts
        middle = text[40:240]  # plain words: written the same in HTML, attribute and JSON
        assert " word" in middle and page.count(middle) <= 2  # shown, and in the table
    plain = [t for t in texts if dom_safe(t) and "[[" not in t]  # as prompts hold them
    assert len(plain) == 3 and all(page.count(t[40:240]) == 1 for t in plain)
    size = sum(len(t.encode()) for t in texts)
    assert len(page.encode()) < 2.5 * size  # every prompt in full: about 5 times


def test_the_prompts_put_together_are_the_recorded_ones(run_dir):
    page = _parsed(run_dir)
    table = [page.shown[i] if t is None else t for i, t in enumerate(page.table)]
    assert None not in table and len(page.shown) >= 3 * 4 - 6  # most shown texts referred to
    built = [("".join(table[int(i)] for i in seg.split()), inline) for seg, inline in
             page.prompts]
    assert all(inline == "" for _, inline in built)  # no prompt text written out in the page
    recorded = [m[1] for r in read_jsonl(run_dir / "calls.jsonl") for m in r["messages"]]
    assert sorted(text for text, _ in built) == sorted(recorded)


def test_segments_store_blocks_whole_and_the_rest_by_line():
    texts = PageTexts()
    shown = texts.shown("alpha beta")
    assert shown == "0" and texts.shown("\nleading") == "" and texts.shown("a\r\nb") == ""
    first = ("Judge.\nQuestion:\n[[question 0a]]\nq?\n[[end question 0a]]\n"
             "[[candidate A 0a]]\nalpha beta\n[[end candidate A 0a]]\nReply.")
    second = first.replace("0a", "1b")
    # lines "Judge.\n" 1, "Question:\n" 2, the question's tag 3, its text "q?" 4, "\n" 5,
    # the end tag 6, the candidate's tag 7, its text (shown: 0), "\n", end tag 8, "Reply." 9
    assert texts.segments(first) == "1 2 3 4 5 6 7 0 5 8 9"
    # the second request shares every text but its tag lines
    assert texts.segments(second) == "1 2 10 4 5 11 12 0 5 13 9"
    table = json.loads(texts.to_json())
    assert table[0] is None and table[4] == "q?" and table[9] == "Reply." and len(table) == 14
    assert "".join("alpha beta" if t is None else t
                   for t in (table[int(i)] for i in texts.segments(second).split())) == second


@pytest.mark.skipif(BROWSER is None, reason="no headless browser installed")
def test_the_browser_puts_each_prompt_together_as_text(run_dir, tmp_path):
    assert BROWSER is not None
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    probe = tmp_path / "report.html"  # every call open, as if each had been clicked
    probe.write_text(page.replace('<details class="call">', '<details class="call" open>'),
                     encoding="utf-8")
    loaded = render(BROWSER, probe.as_uri(), tmp_path / "profile")
    assert loaded.console == []
    dom = _Page()
    dom.feed(loaded.dom)
    assert dom.prompts == []  # every data-seg was consumed
    shown = _PromptText()
    shown.feed(loaded.dom)
    recorded = [m[1] for r in read_jsonl(run_dir / "calls.jsonl") for m in r["messages"]]
    assert sorted(shown.texts) == sorted(t.replace("\r\n", "\n") for t in recorded)
    assert "<script>alert(1)</script>" not in loaded.dom  # shown as text, never markup


class _PromptText(HTMLParser):
    """The text of every ``<pre class="text prompt">`` in a dumped DOM."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self._in: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "pre" and "prompt" in (dict(attrs).get("class") or ""):
            self._in = []

    def handle_data(self, data):
        if self._in is not None:
            self._in.append(data)

    def handle_endtag(self, tag):
        if tag == "pre" and self._in is not None:
            self.texts.append("".join(self._in))
            self._in = None
