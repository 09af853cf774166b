"""An endpoint pool end to end: ``jurybox bench`` through several replicas of one model (each
a :class:`SimServer` in this process, or a loopback server that fails), against the same
command through one endpoint; bad pools refused in one line before any call."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

import jurybox
from jurybox.cli import app
from jurybox.datasets import load_dataset
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.sim import SimConfig, SimJudge, SimServer

from ..cli_checks import one_line_error
from ..providers.fake_server import completion, fake_server, listwise_answer

#: 6 TruthfulQA items, direct and PCF with K=3
SMALL = ["--limit", "6", "--k", "3", "--model", "vllm/judge"]


@contextmanager
def replicas(n: int) -> Iterator[list[str]]:
    """``n`` simulated judges knowing every TruthfulQA item: their base URLs."""
    items = load_dataset("truthfulqa").items
    with ExitStack() as stack:
        yield [stack.enter_context(SimServer(SimJudge(items, SimConfig()))).base_url
               for _ in range(n)]


def bench(*args: str) -> object:
    return CliRunner().invoke(app, ["bench", "truthfulqa", *SMALL, *args])


def decisions(out: Path) -> dict[tuple[str, str], object]:
    """Each (item, protocol): its winners, C_i and top picks per order."""
    return {(r["item_id"], r["protocol"]): (r["winners"], r["combined"], r["top_picks"])
            for r in read_jsonl(out / "items.jsonl")}


def last_session(out: Path) -> dict:
    return json.loads((out / "run.json").read_text())["sessions"][-1]


def test_a_pool_decides_as_one_endpoint_and_a_rerun_through_another_pool_is_free(
        tmp_path: Path) -> None:
    one, pool, again = tmp_path / "one", tmp_path / "pool", tmp_path / "again"
    cache = ["--cache", str(tmp_path / "pool.sqlite")]
    with replicas(3) as (a, b, c):
        assert bench("--base-url", a, "--no-cache", "--out", str(one)).exit_code == 0
        done = bench("--base-url", a, "--base-url", b, *cache, "--out", str(pool))
        assert done.exit_code == 0, done.output
        rerun = bench("--base-url", f"{c},{b}", *cache, "--out", str(again))
        assert rerun.exit_code == 0, rerun.output
    assert decisions(pool) == decisions(one) and len(decisions(one)) == 12
    session = last_session(pool)
    calls = session["totals"]["model_calls"]
    assert [r["url"] for r in session["replicas"]] == [a, b]
    assert sum(r["calls"] for r in session["replicas"]) == calls > 0
    assert sum(r["share"] for r in session["replicas"]) == pytest.approx(1.0, abs=1e-3)
    assert session["items"] == session["items_on_one_replica"] == 6  # affinity held
    assert "endpoint pool: 2 replicas; 6 of 6 items (100.0%) kept every call on one " \
           "replica" in done.output
    # the same model through replicas c and b: every answer from the pool's cache
    again_session = last_session(again)
    assert again_session["totals"]["model_calls"] == 0
    assert again_session["totals"]["cache_hits"] == calls
    assert decisions(again) == decisions(one)
    html = (pool / "report.html").read_text()
    assert "The endpoint pool: model calls sent to each replica" in html and b in html


def test_a_replica_that_answers_503_cools_down_and_every_item_is_judged(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    with replicas(1) as (good,):
        # the same simulated judge's listing: a replica of the same judge, overloaded
        with urllib.request.urlopen(f"{good}/models", timeout=10) as listing:
            models = listing.read().decode()
        with fake_server("busy", status=503, models=models) as bad:
            done = bench("--base-url", f"{bad},{good}", "--no-cache", "--out", str(out))
    assert done.exit_code == 0, done.output
    session = last_session(out)
    bad_stats, good_stats = session["replicas"]
    assert bad_stats["url"] == bad and bad_stats["calls"] == bad_stats["failures"] >= 1
    assert good_stats["failures"] == 0
    totals = session["totals"]
    assert totals["failures"] == {} or not any(totals["failures"].values())
    # each failed call was retried (on the good replica): retries are the bad one's failures
    assert totals["retries"] == bad_stats["failures"]
    assert len(decisions(out)) == 12 and all(d[0] for d in decisions(out).values())


def test_replicas_serving_another_model_are_refused_in_one_line_naming_it(
        tmp_path: Path) -> None:
    with fake_server("{}", models='{"data": [{"id": "judge"}]}') as a, \
            fake_server("{}", models='{"data": [{"id": "qwen2.5-7b"}]}') as b:
        result = bench("--base-url", a, "--base-url", b, "--no-cache", "--out",
                       str(tmp_path / "out"))
    one_line_error(result, f"replica {b} does not serve 'judge': it lists qwen2.5-7b, while "
                           f"{a} lists 'judge'")
    assert not (tmp_path / "out" / "calls.jsonl").exists()


@pytest.mark.parametrize(("args", "fragment"), [
    (["--model", "sim", "--base-url", "http://127.0.0.1:9/v1,http://127.0.0.1:8/v1"],
     "the simulated judge serves itself"),
    (["--replicas", "2"], "--replicas starts local judges (--model local); for replicas of "
                          "vllm/judge, give --base-url once per replica or --endpoints FILE"),
    (["--replicas", "2", "--model", "sim"],
     "--replicas starts local judges (--model local); the simulated judge serves itself in "
     "this process: leave --replicas out"),
    (["--base-url", "http://127.0.0.1:9/v1,http://127.0.0.1:8/v1", "--batch"],
     "an endpoint pool judges online"),
    (["--base-url", "http://127.0.0.1:9/v1", "--endpoints", "pool.yaml"],
     "give --base-url or --endpoints, not both"),
    (["--base-url", "http://127.0.0.1:9/v1,http://127.0.0.1:9/v1/"],
     "--base-url entries 1 and 2 are the same endpoint"),
])
def test_a_pool_the_judge_cannot_take_is_refused_in_one_line(
        args: list[str], fragment: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "2", "--model",
                                      "vllm/judge", *args, "--dry-run"])
    one_line_error(result, fragment)


def test_a_bad_endpoints_file_is_one_line_naming_file_line_and_field(tmp_path: Path) -> None:
    pool = tmp_path / "pool.yaml"
    pool.write_text("endpoints:\n  - url: http://127.0.0.1:9/v1\n  - url: http://127.0.0.1:8/v1\n"
                    "    weight: 0\n")
    result = bench("--endpoints", str(pool), "--dry-run")
    one_line_error(result, f"{pool}:4: endpoint 2:", "weight")


def test_a_jury_takes_no_pool(tmp_path: Path) -> None:
    jury = tmp_path / "jury.yaml"
    jury.write_text("judges:\n  - model: sim\n  - model: sim\n    name: other\n"
                    "    sim: {bias: none}\n")
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "2", "--jury",
                                      str(jury), "--base-url",
                                      "http://127.0.0.1:9/v1,http://127.0.0.1:8/v1"])
    one_line_error(result, "--jury judges each judge at its own endpoint")


@pytest.mark.parametrize(("value", "fragment"), [
    # blanks around the commas (click alone splits at blanks: 'http://...9/v1,' then an
    # empty entry); the pool is formed, and refused with --batch, which a pool cannot take
    ("http://127.0.0.1:9/v1, http://127.0.0.1:8/v1", "an endpoint pool judges online"),
    ("http://127.0.0.1:9/v1 , http://127.0.0.1:8/v1", "an endpoint pool judges online"),
    (" http://127.0.0.1:9/v1   http://127.0.0.1:8/v1 ", "an endpoint pool judges online"),
    ("http://127.0.0.1:9/v1,,http://127.0.0.1:8/v1", "--base-url entry 2 of 3 is empty"),
    # blanks only: an empty base URL, not the provider's default endpoint
    ("  ", "--base-url is empty (is JURYBOX_BASE_URL set to ''?)"),
])
def test_jurybox_base_url_takes_urls_separated_by_commas_and_blanks(
        value: str, fragment: str) -> None:
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "2", "--model",
                                      "vllm/judge", "--batch", "--dry-run"],
                                env={"JURYBOX_BASE_URL": value})
    one_line_error(result, fragment)


def test_batch_files_through_a_pool_go_to_a_server_and_back(tmp_path: Path) -> None:
    run, online = tmp_path / "run", tmp_path / "online"
    requests, results = tmp_path / "req.jsonl", tmp_path / "out.jsonl"
    cli = CliRunner()
    with replicas(2) as (a, b):
        args = ["--base-url", f"{a},{b}", "--out", str(run), "--cache",
                str(tmp_path / "c.sqlite"), "--batch-files"]
        first = bench(*args)
        assert first.exit_code == 0, first.output
        assert "jurybox batch export" in first.output
        assert cli.invoke(app, ["batch", "export", str(run), "-o",
                                str(requests)]).exit_code == 0
        lines = [json.loads(line) for line in requests.read_text().splitlines()]
        assert {line["body"]["model"] for line in lines} == {"judge"} and len(lines) > 0
        answered = []
        for n, line in enumerate(lines):  # what vllm run-batch does, on replica a
            post = urllib.request.Request(f"{a}/chat/completions",
                                          data=json.dumps(line["body"]).encode(),
                                          headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(post, timeout=30) as resp:
                answered.append({"id": f"r{n}", "custom_id": line["custom_id"], "error": None,
                                 "response": {"status_code": resp.status,
                                              "body": json.loads(resp.read())}})
        results.write_text("".join(json.dumps(x) + "\n" for x in answered))
        assert cli.invoke(app, ["batch", "import", str(run), str(results)]).exit_code == 0
        rerun = bench(*args)
        assert rerun.exit_code == 0, rerun.output
        assert bench("--base-url", a, "--no-cache", "--out", str(online)).exit_code == 0
    assert json.loads((run / "run.json").read_text())["status"] == "complete"
    assert decisions(run) == decisions(online) and len(decisions(run)) == 12


def test_judge_from_python_takes_a_list_of_base_urls_or_an_endpoints_file(
        tmp_path: Path) -> None:
    options = RunOptions(cache_path=None)
    pool_file = tmp_path / "pool.yaml"

    def run(out: str, **given: object) -> tuple[list[object], dict]:
        result = jurybox.judge("truthfulqa", model="vllm/judge", limit=4, k=3,
                               out=tmp_path / out, options=options, **given)
        manifest = json.loads((tmp_path / out / "run.json").read_text())
        return [(j.item_id, j.winners) for j in result.items], manifest
    with replicas(2) as (a, b):
        pool_file.write_text(f"- {a}\n- url: {b}\n  weight: 2\n")
        one, _ = run("one", base_url=a)
        runs = [run("list", base_url=[a, b]), run("tuple", base_url=(b, a)),
                run("comma", base_url=f"{a}, {b}"), run("file", endpoints=pool_file)]
    assert len(one) == 4
    for (judged, manifest), urls in zip(runs, ([a, b], [b, a], [a, b], [a, b])):
        assert judged == one  # the same decisions as through one endpoint
        assert manifest["config"]["base_url"] is None
        replicas_used = manifest["sessions"][-1]["replicas"]
        assert [r["url"] for r in replicas_used] == urls
        assert sum(r["calls"] for r in replicas_used) == \
            manifest["sessions"][-1]["totals"]["model_calls"] > 0


def test_each_replica_gets_the_key_its_key_env_names(tmp_path: Path, monkeypatch) -> None:
    for name in ("OPENAI_API_KEY", "JURYBOX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("POOL_KEY_A", "key-a")
    monkeypatch.setenv("POOL_KEY_B", "key-b")
    pool = tmp_path / "pool.yaml"
    seen_a: list[str | None] = []
    seen_b: list[str | None] = []
    body = completion(listwise_answer())
    with fake_server(body, keys=seen_a) as a, fake_server(body, keys=seen_b) as b:
        pool.write_text(f"- url: {a}\n  key_env: POOL_KEY_A\n- url: {b}\n"
                        f"  key_env: POOL_KEY_B\n")
        CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "4", "--k", "2", "--model",
                                 "openai/judge", "--endpoints", str(pool), "--no-cache",
                                 "--out", str(tmp_path / "out")])
    assert len(seen_a) >= 1 and set(seen_a) == {"Bearer key-a"}  # GET /models at least
    assert len(seen_b) >= 1 and set(seen_b) == {"Bearer key-b"}


def test_a_replica_without_key_env_is_named_when_the_provider_key_is_missing(
        tmp_path: Path, monkeypatch) -> None:
    for name in ("OPENAI_API_KEY", "JURYBOX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("POOL_KEY_A", "key-a")
    monkeypatch.chdir(tmp_path)
    # hosts off this machine (a loopback one needs no key); never reached: the key is first
    Path("pool.yaml").write_text("- url: http://a.invalid:9/v1\n  key_env: POOL_KEY_A\n"
                                 "- url: http://b.invalid:8/v1\n")
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "2", "--model",
                                      "openai/judge", "--endpoints", "pool.yaml", "--no-cache",
                                      "--out", str(tmp_path / "out")])
    one_line_error(result, "pool.yaml:3: the replica http://b.invalid:8/v1 names no key_env, "
                           "and openai/judge needs an API key: export OPENAI_API_KEY=...")


def test_base_url_from_the_environment_with_endpoints_names_the_variables(
        tmp_path: Path) -> None:
    pool = tmp_path / "pool.yaml"
    pool.write_text("- http://127.0.0.1:9/v1\n- http://127.0.0.1:8/v1\n")
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "2", "--model",
                                      "vllm/judge", "--endpoints", str(pool), "--dry-run"],
                                env={"JURYBOX_BASE_URL": "http://127.0.0.1:7/v1"})
    one_line_error(result, "give --base-url or --endpoints, not both (the endpoints file lists "
                           "every replica; either may come from the environment: "
                           "JURYBOX_BASE_URL, JURYBOX_ENDPOINTS)")
