"""``--executor ray``: the driver's engine with the calls made by Ray actors. Decisions equal
a local run's, an item's calls stay on one actor, the cache is shared with local runs, a
killed actor costs no answered call twice, a partial run resumes, and bad input is one line."""

from __future__ import annotations

import importlib.util
import json
import socket
import sys

import pytest
from typer.testing import CliRunner

import jurybox
from jurybox.cli import app
from jurybox.datasets import load_dataset
from jurybox.providers.pool import AFFINITY
from jurybox.ray import RayProvider, cluster
from jurybox.run import RunOptions
from jurybox.sim import SimConfig, SimJudge, SimServer
from tests.cli_checks import one_line_error

from .conftest import decisions, paid_calls

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]
pytest.importorskip("ray")
runner = CliRunner()


def _bench(out, *extra: str) -> list[str]:
    return ["bench", "truthfulqa", "--limit", "16", "--k", "3", "--out", str(out), *extra]


def test_two_ray_actors_give_the_local_executors_decisions_and_calls(tmp_path):
    local = runner.invoke(app, _bench(tmp_path / "local", "--no-cache"))
    assert local.exit_code == 0, local.output
    on_ray = runner.invoke(app, _bench(tmp_path / "ray", "--no-cache", "--executor", "ray",
                                       "--ray-actors", "2"))
    assert on_ray.exit_code == 0, on_ray.output
    got, want = decisions(tmp_path / "ray"), decisions(tmp_path / "local")
    assert len(want) == 32  # 16 items x (direct, pcf)
    assert got == want
    # pcf's 3 orders and direct's one share their identity order: 3 calls an item
    assert paid_calls(tmp_path / "ray") == paid_calls(tmp_path / "local") == 48


def test_an_items_calls_all_go_to_one_actor_and_every_actor_works(tmp_path, monkeypatch):
    routed: dict[str, set[int]] = {}
    route = RayProvider._route

    async def recording(self, item):
        slot = await route(self, item)
        routed.setdefault(AFFINITY.get() or "", set()).add(slot.index)
        return slot

    monkeypatch.setattr(RayProvider, "_route", recording)
    result = runner.invoke(app, _bench(tmp_path / "run", "--no-cache", "--executor", "ray",
                                       "--ray-actors", "3"))
    assert result.exit_code == 0, result.output
    assert len(routed) == 16 and "" not in routed
    assert all(len(actors) == 1 for actors in routed.values()), routed
    assert set().union(*routed.values()) == {0, 1, 2}


def test_a_ray_run_and_a_local_run_share_the_response_cache(tmp_path):
    cache = str(tmp_path / "cache.sqlite")
    on_ray = runner.invoke(app, _bench(tmp_path / "ray", "--cache", cache, "--executor", "ray"))
    assert on_ray.exit_code == 0, on_ray.output
    local = runner.invoke(app, _bench(tmp_path / "local", "--cache", cache))
    assert local.exit_code == 0, local.output
    assert paid_calls(tmp_path / "ray") == 48 and paid_calls(tmp_path / "local") == 0
    assert decisions(tmp_path / "local") == decisions(tmp_path / "ray")


def test_a_killed_actor_changes_no_decision_and_no_answer_is_received_twice(tmp_path,
                                                                          monkeypatch,
                                                                          ray_session):
    items = load_dataset("truthfulqa").items
    with SimServer(SimJudge(items, SimConfig(latency_ms=40))) as server:
        served = ["--model", "vllm/judge", "--base-url", server.base_url]
        before = server.judge.stats.prompts
        local = runner.invoke(app, _bench(tmp_path / "local", *served, "--cache",
                                          str(tmp_path / "local.sqlite")))
        assert local.exit_code == 0, local.output
        local_prompts = server.judge.stats.prompts - before

        seen: list[RayProvider] = []
        sent = [0]
        complete = RayProvider.complete

        async def killing(self, request):
            seen.append(self)
            sent[0] += 1
            if sent[0] == 20:  # 19 calls sent, several in flight on each actor: kill actor 0
                ray_session.kill(self.handles[0], no_restart=False)  # Ray restarts it
            return await complete(self, request)

        monkeypatch.setattr(RayProvider, "complete", killing)
        before = server.judge.stats.prompts
        on_ray = runner.invoke(app, _bench(tmp_path / "ray", *served, "--cache",
                                           str(tmp_path / "ray.sqlite"), "--executor", "ray"))
        ray_prompts = server.judge.stats.prompts - before
    assert on_ray.exit_code == 0, on_ray.output
    stats = seen[0].actor_stats()
    lost = sum(s["lost_calls"] for s in stats)
    # the kill cost calls in flight (Ray may report the loss twice: unavailable, then dead)
    assert stats[0]["losses"] >= 1 and lost >= 1, stats
    assert decisions(tmp_path / "ray") == decisions(tmp_path / "local")
    # every answer the driver received was new: the same 48 as the local run
    assert paid_calls(tmp_path / "ray") == paid_calls(tmp_path / "local") == 48
    # the server answered each prompt once, plus at most the calls in flight when the actor
    # died (answered there, never received: sent again)
    assert local_prompts == 48
    assert local_prompts <= ray_prompts <= local_prompts + lost


def test_a_partial_ray_run_and_its_resumes_equal_the_local_executors_session_by_session(
        tmp_path):
    # one attempt a call and 30% injected 500s: some calls fail, some items get no decision.
    # The faults are a hash of (request, attempt, session), so the local run meets the same
    # ones: each session on Ray must leave the run directory as the same session locally
    def faulty(out, *extra: str) -> list[str]:
        return _bench(out, "--no-cache", "--attempts", "1", "--sim-faults", "rate_500=0.3",
                      *extra)

    codes = []
    for _ in range(8):
        local = runner.invoke(app, faulty(tmp_path / "local"))
        on_ray = runner.invoke(app, faulty(tmp_path / "ray", "--executor", "ray"))
        assert on_ray.exit_code == local.exit_code, (local.output, on_ray.output)
        assert decisions(tmp_path / "ray") == decisions(tmp_path / "local")
        codes.append(local.exit_code)
        if local.exit_code == 0:
            break
    assert codes[0] == 3 and codes[-1] == 0, codes  # partial first, then resumed to complete
    assert len(decisions(tmp_path / "ray")) == 32


def test_judge_with_ray_options_equals_judge_in_process(tmp_path):
    items = [{"id": f"q{i}", "prompt": f"Which is right, case {i}?",
              "candidates": [f"yes {i}", f"no {i}", f"maybe {i}"], "gold": [i % 3]}
             for i in range(10)]
    local = jurybox.judge(items, model="sim", k=3, out=tmp_path / "local",
                          options=RunOptions(cache_path=None))
    on_ray = jurybox.judge(items, model="sim", k=3, out=tmp_path / "ray",
                           options=RunOptions(cache_path=None, executor="ray", ray_actors=2))
    assert on_ray.items == local.items
    assert [j.item_id for j in on_ray.items] == [f"q{i}" for i in range(10)]


def test_an_unreachable_ray_address_is_one_line_exit_2_before_any_call(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = runner.invoke(app, _bench(tmp_path / "run", "--executor", "ray",
                                       "--ray-address", f"127.0.0.1:{port}"))
    one_line_error(result, f"--ray-address 127.0.0.1:{port}: cannot connect to "
                           f"127.0.0.1:{port}")
    assert not (tmp_path / "run").exists()


def test_executor_ray_without_the_extra_names_the_pip_line(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))
    monkeypatch.setitem(sys.modules, "ray", None)
    result = runner.invoke(app, _bench(tmp_path / "run", "--executor", "ray"))
    one_line_error(result, "pip install 'jurybox[ray]'")


def test_a_pool_under_ray_records_each_replicas_calls_and_the_items_in_run_json(tmp_path):
    # the actors' pools are summed into the session, as a local run through the same pool
    items = load_dataset("truthfulqa").items
    with SimServer(SimJudge(items)) as a, SimServer(SimJudge(items)) as b:
        pool = ["--model", "vllm/judge", "--base-url", a.base_url, "--base-url", b.base_url,
                "--no-cache"]
        local = runner.invoke(app, _bench(tmp_path / "local", *pool))
        assert local.exit_code == 0, local.output
        on_ray = runner.invoke(app, _bench(tmp_path / "ray", *pool, "--executor", "ray"))
        assert on_ray.exit_code == 0, on_ray.output
        urls = [a.base_url, b.base_url]
    sessions = {name: json.loads((tmp_path / name / "run.json").read_text())["sessions"][-1]
                for name in ("local", "ray")}
    for name, session in sessions.items():
        replicas = session["replicas"]
        assert [r["url"] for r in replicas] == urls, name
        assert sum(r["calls"] for r in replicas) == 48, name  # 16 items x 3 calls
        assert sum(r["share"] for r in replicas) == pytest.approx(1.0, abs=1e-3)
        assert all(r["failures"] == 0 and r["mean_latency_s"] > 0 for r in replicas), name
        assert (session["items"], session["items_on_one_replica"]) == (16, 16), name
    assert "endpoint pool: 2 replicas; 16 of 16 items (100.0%) kept every call on one " \
           "replica" in on_ray.output
    assert sessions["ray"]["executor"] == {"name": "ray", "actors": 2, "address": None}
    assert sessions["local"]["executor"] == {"name": "local"}
    assert decisions(tmp_path / "ray") == decisions(tmp_path / "local")


def test_ray_address_of_a_running_cluster_joins_it(tmp_path, ray_session):
    # the session's own head node (its GCS answers the address check as a gRPC server); the
    # run records the address it joined
    address = ray_session.get_runtime_context().gcs_address
    assert cluster.address_problem(address) is None
    result = runner.invoke(app, _bench(tmp_path / "run", "--no-cache", "--executor", "ray",
                                       "--ray-address", address))
    assert result.exit_code == 0, result.output
    session = json.loads((tmp_path / "run" / "run.json").read_text())["sessions"][-1]
    assert session["executor"] == {"name": "ray", "actors": 2, "address": address}
    assert paid_calls(tmp_path / "run") == 48
