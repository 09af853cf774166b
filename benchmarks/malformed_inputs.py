"""Malformed inputs through the CLI, with the simulated judge: every one must fail up front.

Writes about 70 bad files (datasets, ratings, item texts, rubrics, run directories) and bad
option sets to a temporary folder, runs each through the command that reads it (``bench``,
``agreement``, ``personalize``, ``score``, ``cache``), and checks that it exits 2 with one
line on stderr starting with ``error:``, no ``Traceback``, and no model call (no
calls.jsonl in the run directory). A few cases check a warning or a no-op instead.

Usage: python benchmarks/malformed_inputs.py [--jurybox PATH] [--jobs 8] [--keep]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

GOOD = {"id": "a", "prompt": "Q?", "candidates": ["x", "y"], "gold": 0}
RB2 = {"id": 1, "prompt": "Q?", "chosen": ["good"], "rejected": ["bad"], "subset": "Factuality"}
JB = {"pair_id": "p1", "source": "livecodebench", "question": "Q?", "response_A": "a",
      "response_B": "b", "label": "A>B"}
TQA = "Type,Category,Question,Best Answer,Best Incorrect Answer,Incorrect Answers\n"
RATINGS = "item_id,rater_id,dimension,score\n"
SQ_ITEM = "sq_50827_q0_bart"  # an item of the bundled squality set
DEEP = "[" * 100_000 + "]" * 100_000
RUBRIC = "name: t\ndimensions:\n  - name: correctness\n    scale: {min: 0, max: 100}\n"


@dataclass
class Case:
    name: str
    files: dict[str, bytes | str]
    args: list[str]  # {dir} is the case folder
    expect: str = "error"  # error | warning | ok
    fragment: str = ""  # must appear in the error/warning line
    setup: Callable[[Path, str], None] | None = field(default=None, repr=False)


def jl(*rows: object) -> str:
    """JSON lines; a str row is written as is (to spell escapes json.dumps would not)."""
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


def bench(name: str, content: bytes | str, fragment: str = "", *, file: str = "d.jsonl",
          extra: tuple[str, ...] = ()) -> Case:
    return Case(name, {file: content}, ["bench", "{dir}/" + file, *extra], fragment=fragment)


def agreement(name: str, content: bytes | str, fragment: str = "", *,
              file: str = "r.csv") -> Case:
    return Case(name, {file: content}, ["agreement", "{dir}/" + file, "--no-plots",
                                        "--resamples", "0"], fragment=fragment)


def personalize(name: str, files: dict[str, bytes | str], fragment: str = "", *,
                ratings: str = "squality", items: str = "squality", rubric: str = "squality",
                extra: tuple[str, ...] = ()) -> Case:
    def where(value: str) -> str:
        return "{dir}/" + value if value in files else value
    return Case(name, files, ["personalize", where(ratings), "--items", where(items),
                              "--rubric", where(rubric), "--shots", "0", "--seeds", "1",
                              "--raters", "1", "--limit", "1", *extra], fragment=fragment)


def listwise_cases() -> list[Case]:
    cand27 = [f"c{i}" for i in range(27)]
    return [
        Case("bench: a directory", {"somedir/x": ""}, ["bench", "{dir}/somedir"],
             fragment="not a file"),
        Case("bench: missing file", {}, ["bench", "{dir}/absent.jsonl"],
             fragment="file not found"),
        bench("jsonl: nested 100000 deep", DEEP + "\n", "nested too deeply"),
        bench("jsonl: nested in a field", '{"id": "a", "prompt": ' + DEEP + "}\n",
              "nested too deeply"),
        bench("jsonl: invalid JSON", '{"id": "a",\n', "invalid JSON"),
        bench("jsonl: not an object", "[1, 2]\n", "expected a JSON object"),
        bench("jsonl: not UTF-8", '{"id": "caf\xe9"}\n'.encode("latin-1"), "not UTF-8"),
        bench("jsonl: lone surrogate in prompt",
              jl('{"id": "a", "prompt": "Q\\ud800", "candidates": ["x", "y"], "gold": 0}'),
              "lone surrogate"),
        bench("jsonl: lone surrogate in a candidate",
              jl('{"id": "a", "prompt": "Q", "candidates": ["x", "\\udc00"], "gold": 0}'),
              "candidates[1]"),
        bench("jsonl: NUL in prompt", jl({**GOOD, "prompt": "Q\x00?"}), "NUL"),
        bench("jsonl: NUL in a candidate", jl({**GOOD, "candidates": ["x", "y\x00"]}), "NUL"),
        bench("jsonl: 27 candidates", jl({**GOOD, "candidates": cand27}), "at most 26"),
        bench("jsonl: 1 candidate", jl({**GOOD, "candidates": ["x"]}), "at least 2"),
        bench("jsonl: a 5000-digit id",
              '{"id": ' + "7" * 5000 + ', "prompt": "Q", "candidates": ["x", "y"], "gold": 0}\n',
              "field 'id'"),
        bench("jsonl: empty id", jl({**GOOD, "id": ""}), "field 'id'"),
        bench("jsonl: blank id", jl({**GOOD, "id": "   "}), "field 'id'"),
        bench("jsonl: boolean id", jl({**GOOD, "id": True}), "got True"),
        bench("jsonl: null id", jl({**GOOD, "id": None}), "field 'id'"),
        bench("jsonl: float id", jl({**GOOD, "id": 1.5}), "field 'id'"),
        bench("jsonl: list id", jl({**GOOD, "id": ["a"]}), "field 'id'"),
        bench("jsonl: 300-character id", jl({**GOOD, "id": "x" * 300}), "at most 256"),
        bench("jsonl: integer group", jl({**GOOD, "group": 5}), "field 'group'"),
        bench("jsonl: list group", jl({**GOOD, "group": ["g"]}), "field 'group'"),
        bench("jsonl: gold out of range", jl({**GOOD, "gold": 5}), "gold"),
        bench("jsonl: boolean gold", jl({**GOOD, "gold": True}), "gold"),
        bench("jsonl: string gold", jl({**GOOD, "gold": "0"}), "gold"),
        bench("jsonl: duplicate ids", jl(GOOD, {**GOOD, "prompt": "R?"}), "duplicate id"),
        bench("jsonl: duplicate candidates", jl({**GOOD, "candidates": ["x", "x "]}),
              "same text"),
        bench("jsonl: empty file", "", "no items"),
        bench("jsonl: prompt not text", jl({**GOOD, "prompt": 3}), "prompt"),
        bench("rb2: boolean id", jl({**RB2, "id": False}), "got False"),
        bench("rb2: no chosen", jl({**RB2, "chosen": []}), "no chosen"),
        bench("rb2: NUL in rejected", jl({**RB2, "rejected": ["ba\x00d"]}), "rejected[0]"),
        bench("rb2: integer subset", jl({**RB2, "subset": 3}), "subset"),
        bench("rb2: 27 candidates", jl({**RB2, "rejected": [f"b{i}" for i in range(26)]}),
              "at most 26"),
        bench("judgebench: boolean pair_id", jl({**JB, "pair_id": True}), "pair_id"),
        bench("judgebench: bad label", jl({**JB, "label": "A=B"}), "label"),
        bench("judgebench: lone surrogate",
              jl(json.dumps(JB).replace('"a"', '"a\\ud800"')), "response_A"),
        bench("judgebench: integer source", jl({**JB, "source": 4}), "source"),
        bench("judgebench: empty question", jl({**JB, "question": " "}), "question"),
    ]


def csv_and_option_cases() -> list[Case]:
    csv = "t.csv"
    return [
        bench("truthfulqa: field over the csv limit", TQA + "A,C,Q?," + "x" * 200_000
              + ",b,c\n", "field larger than field limit", file=csv),
        bench("truthfulqa: NUL", TQA + 'A,C,Q?,"g\x00",b,c\n', "NUL", file=csv),
        bench("truthfulqa: not UTF-8", (TQA + "A,C,Q?,caf\xe9,b,c\n").encode("latin-1"),
              "not UTF-8", file=csv),
        bench("truthfulqa: missing columns", "Question,Answer\nQ?,A\n", "missing column",
              file=csv),
        bench("truthfulqa: extra field", TQA + "A,C,Q?,g,b,c,extra\n", "more fields",
              file=csv),
        bench("truthfulqa: empty best answer", TQA + "A,C,Q?,,b,c\n", "Best Answer",
              file=csv),
        Case("option: --protocols direct,direct", {}, ["bench", "rewardbench2-sample",
                                                       "--protocols", "direct,direct"],
             fragment="more than once"),
        Case("option: --protocols ,", {}, ["bench", "rewardbench2-sample", "--protocols", ","],
             fragment="names no protocol"),
        Case("option: --verdict-format json on listwise", {},
             ["bench", "rewardbench2-sample", "--verdict-format", "json"],
             fragment="--verdict-format"),
        Case("option: apoc on a listwise dataset", {},
             ["bench", "rewardbench2-sample", "--protocols", "apoc"], fragment="pairwise"),
    ]


def ratings_cases() -> list[Case]:
    return [
        agreement("ratings: field over the csv limit", RATINGS + "i,r,d," + "9" * 200_000
                  + "\n", "field larger"),
        agreement("ratings: not UTF-8", (RATINGS + "caf\xe9,r,d,1\n").encode("latin-1"),
                  "not UTF-8"),
        agreement("ratings: nested JSONL", DEEP + "\n", "nested too deeply", file="r.jsonl"),
        agreement("ratings: boolean rater", jl({"item_id": "i", "rater_id": True,
                                                "dimension": "d", "score": 1}),
                  "rater_id", file="r.jsonl"),
        agreement("ratings: NUL in dimension", RATINGS + 'i,r,"d\x00",1\n', "NUL"),
        agreement("ratings: missing column", "item_id,rater_id,score\ni,r,1\n",
                  "missing column"),
        agreement("ratings: score not a number", RATINGS + "i,r,d,abc\n", "score"),
        agreement("ratings: infinite score", RATINGS + "i,r,d,inf\n", "score"),
        agreement("ratings: extra field", RATINGS + "i,r,d,1,x\n", "more fields"),
        agreement("ratings: header only", RATINGS, "no ratings"),
        agreement("ratings: duplicate", RATINGS + "i,r,d,1\ni,r,d,2\n", "duplicate"),
        Case("ratings: a BOM is accepted", {"r.csv": "\ufeff" + RATINGS + "i,r,d,1\ni,q,d,2\n"},
             ["agreement", "{dir}/r.csv", "--no-plots", "--resamples", "0"], expect="ok"),
    ]


def personalize_cases() -> list[Case]:
    r500 = RATINGS + f"{SQ_ITEM},sq_w3,correctness,500\n"
    latin = "name: caf\xe9\ndimensions: []\n".encode("latin-1")
    return [
        personalize("personalize: rating 500 on 0-100", {"r.csv": r500}, "not on the rubric",
                    ratings="r.csv"),
        personalize("personalize: rating 2.5 on an integer scale",
                    {"r.csv": RATINGS + f"{SQ_ITEM},sq_w3,correctness,2.5\n"},
                    "not on the rubric", ratings="r.csv"),
        personalize("personalize: --configs ,", {}, "names no judge kind",
                    extra=("--configs", ",")),
        personalize("personalize: --judges aggregate,aggregate", {}, "more than once",
                    extra=("--judges", "aggregate,aggregate")),
        personalize("rubric: not UTF-8", {"r.yaml": latin}, "not UTF-8", rubric="r.yaml"),
        personalize("rubric: nested YAML", {"r.yaml": "name: " + DEEP + "\n"},
                    "nested too deeply", rubric="r.yaml"),
        personalize("rubric: nested JSON", {"r.json": '{"name": ' + DEEP + "}"},
                    "nested too deeply", rubric="r.json"),
        personalize("rubric: lone surrogate", {"r.yaml": RUBRIC + '    description: "\\ud800"\n'},
                    "lone surrogate", rubric="r.yaml"),
        personalize("rubric: 5000-digit integer",
                    {"r.yaml": RUBRIC.replace("max: 100", "max: " + "9" * 5000)},
                    "invalid YAML value", rubric="r.yaml"),
        personalize("rubric: missing", {}, "file not found", rubric="absent.yaml"),
        Case("rubric: a directory", {"rd/x": ""},
             ["personalize", "squality", "--rubric", "{dir}/rd"], fragment="not a file"),
        personalize("items: not UTF-8", {"i.csv": "item_id,text\na,caf\xe9\n".encode("latin-1")},
                    "not UTF-8", items="i.csv"),
        personalize("items: nested JSONL", {"i.jsonl": DEEP + "\n"}, "nested too deeply",
                    items="i.jsonl"),
        personalize("items: text is a list",
                    {"i.jsonl": jl({"item_id": "a", "text": ["x"], "passage_id": "1"})},
                    "not text", items="i.jsonl"),
        personalize("items: boolean id",
                    {"i.jsonl": jl({"item_id": True, "text": "x", "passage_id": "1"})},
                    "item_id", items="i.jsonl"),
        personalize("items: lone surrogate",
                    {"i.jsonl": jl('{"item_id": "a", "text": "\\ud800", "passage_id": "1"}')},
                    "lone surrogate", items="i.jsonl"),
    ]


def _make_run(folder: Path, jurybox: str) -> None:
    subprocess.run([jurybox, "bench", "rewardbench2-sample", "--k", "2", "--limit", "2",
                    "--no-cache", "--out", str(folder / "run")], check=True,
                   capture_output=True)


def _corrupt_calls(folder: Path, jurybox: str) -> None:
    _make_run(folder, jurybox)
    calls = folder / "run" / "calls.jsonl"
    calls.write_text(calls.read_text() + "{not json\n")


def _deep_manifest(folder: Path, jurybox: str) -> None:
    _make_run(folder, jurybox)
    (folder / "run" / "run.json").write_text(DEEP)


def _calls_dir(folder: Path, jurybox: str) -> None:
    _make_run(folder, jurybox)
    (folder / "run" / "calls.jsonl").unlink()
    (folder / "run" / "calls.jsonl").mkdir()


def score_and_cache_cases() -> list[Case]:
    judgment = '{"judgment": {"response": "[[A>B]]\\u0000"}, "decision": "A>B"}'
    outputs = jl('{"pair_id": "p", "source": "livecodebench", "label": "A>B", '
                 f'"judgments": [{judgment}, {judgment}]}}')
    return [
        Case("score: a corrupt calls.jsonl line", {}, ["score", "{dir}/run", "--out",
                                                        "{dir}/rescored"],
             expect="warning", fragment="skipped 1 line(s)", setup=_corrupt_calls),
        Case("score: run.json nested 100000 deep", {}, ["score", "{dir}/run", "--out",
                                                        "{dir}/rescored"],
             fragment="not a readable run manifest", setup=_deep_manifest),
        Case("score: calls.jsonl is a directory", {}, ["score", "{dir}/run", "--out",
                                                       "{dir}/rescored"],
             fragment="calls.jsonl: not a file", setup=_calls_dir),
        Case("score: outputs file with NUL in a judgment", {"o.jsonl": outputs},
             ["score", "{dir}/o.jsonl"], fragment="NUL"),
        Case("cache info on a new path creates nothing", {},
             ["cache", "info", "--path", "{dir}/new/dir/c.sqlite"], expect="ok",
             fragment="no cache at"),
    ]


def run_case(case: Case, root: Path, jurybox: str) -> tuple[Case, str | None]:
    """Run one case; returns (case, None) on success or a description of what went wrong."""
    folder = root / "".join(c if c.isalnum() else "_" for c in case.name)
    folder.mkdir()
    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", errors="surrogatepass")
    if case.setup:
        case.setup(folder, jurybox)
    args = [a.replace("{dir}", str(folder)) for a in case.args]
    if args[0] in ("bench", "personalize"):
        args += ["--model", "sim", "--no-cache", "--out", str(folder / "out")]
    proc = subprocess.run([jurybox, *args], capture_output=True, text=True, timeout=300)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    if "Traceback" in proc.stderr + proc.stdout:
        return case, f"traceback:\n{proc.stderr[-600:]}"
    if (folder / "out" / "calls.jsonl").exists():
        return case, "a model was called"
    if case.expect == "error":
        if proc.returncode != 2 or len(lines) != 1 or not lines[0].startswith("error:"):
            return case, f"exit {proc.returncode}, stderr {lines[:3]!r}"
        if case.fragment not in lines[0]:
            return case, f"{case.fragment!r} not in {lines[0]!r}"
    elif case.expect == "warning":
        warned = [ln for ln in lines if ln.startswith("warning:")]
        if proc.returncode != 0 or len(warned) != 1 or case.fragment not in warned[0]:
            return case, f"exit {proc.returncode}, stderr {lines[:3]!r}"
    else:
        if proc.returncode != 0 or case.fragment not in proc.stdout + proc.stderr:
            return case, f"exit {proc.returncode}, stderr {lines[:3]!r}"
        if "new" in case.args[-1] and (folder / "new").exists():
            return case, "created the cache folder"
    return case, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jurybox", default=str(Path(sys.executable).parent / "jurybox"))
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--keep", action="store_true", help="Keep the temporary folder.")
    args = parser.parse_args()
    cases = (listwise_cases() + csv_and_option_cases() + ratings_cases()
             + personalize_cases() + score_and_cache_cases())
    root = Path(tempfile.mkdtemp(prefix="jurybox-malformed-"))
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda c: run_case(c, root, args.jurybox), cases))
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    failed = [(case, why) for case, why in results if why]
    for case, why in failed:
        print(f"FAIL {case.name}: {why}")
    counts = {kind: sum(1 for c in cases if c.expect == kind) for kind in
              ("error", "warning", "ok")}
    print(f"{len(cases) - len(failed)} of {len(cases)} cases behave ({counts['error']} "
          f"one-line errors, {counts['warning']} warnings, {counts['ok']} accepted inputs); "
          f"{len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
