"""serve-sim says when it is asked about items it does not know, and the bench warns."""

import json
import logging
import urllib.request

from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.datasets import load_dataset
from jurybox.protocols import listwise_request
from jurybox.sim import UNKNOWN_HEADER

from ..conftest import make_items

runner = CliRunner()


def _post(server, request):
    body = json.dumps({"model": "judge", "messages": [m.model_dump() for m in request.messages],
                       "seed": request.seed}).encode()
    req = urllib.request.Request(f"{server.base_url}/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers[UNKNOWN_HEADER]


def _stats(server):
    with urllib.request.urlopen(f"{server.base_url}/sim/stats", timeout=10) as resp:
        return json.loads(resp.read())


def test_the_server_counts_unknown_candidates(sim, caplog):
    caplog.set_level(logging.WARNING, "jurybox.sim.server")
    known, other = make_items(1), make_items(2, n=3)[1:]  # q1 is not among the known items
    with sim(known) as server:
        assert _stats(server) == {"known_items": 1, "prompts": 0, "unknown_prompts": 0,
                                  "unknown_candidates": 0, "max_concurrency": None,
                                  "in_flight": 0, "max_in_flight": 0, "queued": 0,
                                  "queued_max": 0}
        item = known[0]
        assert _post(server, listwise_request(item.prompt, list(item.candidates),
                                              tag="00aa00aa", seed=1)) == "0"
        item = other[0]
        assert _post(server, listwise_request(item.prompt, list(item.candidates),
                                              tag="00aa00aa", seed=1)) == "3"
        assert _stats(server) == {"known_items": 1, "prompts": 2, "unknown_prompts": 1,
                                  "unknown_candidates": 3, "max_concurrency": None,
                                  "in_flight": 0, "max_in_flight": 1, "queued": 0,
                                  "queued_max": 0}
    (message,) = [r.getMessage() for r in caplog.records if r.name == "jurybox.sim.server"]
    assert "asked about 1 prompt(s) whose candidates or responses it does not know" in message
    assert "loaded with 1 items" in message


def _bench(server, out):
    return runner.invoke(app, ["bench", "rewardbench2-sample", "--model", "vllm/judge",
                               "--base-url", server.base_url, "--k", "2", "--no-cache",
                               "--out", str(out)])


def test_a_bench_against_a_judge_loaded_with_other_items_warns(sim, tmp_path):
    with sim(make_items(3)) as server:  # not rewardbench2-sample's items
        result = _bench(server, tmp_path / "run")
    assert result.exit_code == 0, result.output
    calls = (tmp_path / "run" / "calls.jsonl").read_text().splitlines()
    assert len(calls) == 16  # 8 items x 2 orders (direct is pcf's first), every one unknown
    expected = ("warning: the simulated judge did not know the candidates of 16 of the 16 "
                "prompts it was sent")
    assert expected in result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["warnings"][0].startswith(expected.removeprefix("warning: "))
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["sessions"][0]["sim_unknown"] == {"prompts": 16, "unknown_prompts": 16}


def test_no_warning_when_the_judge_knows_the_items(sim, tmp_path):
    with sim(load_dataset("rewardbench2-sample").items) as server:
        result = _bench(server, tmp_path / "run")
    assert result.exit_code == 0, result.output
    assert "warning:" not in result.output and "did not know" not in result.output
    assert "warnings" not in json.loads((tmp_path / "run" / "summary.json").read_text())
