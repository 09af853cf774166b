"""The Ray executor's pieces that need no Ray: its options and their one-line errors, the
recipe an actor rebuilds its judge from, errors travelling back as data, the actor's own
calls, and the item -> actor routing. The runs on Ray are in tests/ray (marker ``ray``)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import pickle
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import (ConfigError, ProviderError, RateLimitError,
                            RetryableProviderError)
from jurybox.providers import ChatRequest, ChatResponse, Message, OpenAICompatibleProvider
from jurybox.providers.pool import PoolProvider
from jurybox.ray import cluster
from jurybox.ray.actor import JudgeActor, RemoteError
from jurybox.ray.cluster import address_problem
from jurybox.ray.dataset import _BatchJudge
from jurybox.ray.provider import actor_for, merge_pool_stats
from jurybox.ray.recipe import ProviderRecipe, recipe_of
from jurybox.run import RunOptions
from jurybox.sim import SimConfig, SimJudge, SimServer
from tests.cli_checks import one_line_error
from tests.conftest import make_items

runner = CliRunner()
PIP_LINE = "pip install 'jurybox[ray]'"


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray looks uninstalled (whether or not it is)."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))
    monkeypatch.setitem(__import__("sys").modules, "ray", None)  # import ray -> ImportError


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray looks installed, and any use of it past the checks fails the test."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name == "ray" else real(name, *a))

    def no_ray_use() -> None:
        raise AssertionError("Ray was used after a bad --ray-address")
    monkeypatch.setattr(cluster, "require_ray", no_ray_use)


def _bench(tmp_path, *extra: str) -> list[str]:
    return ["bench", "truthfulqa", "--limit", "4", "--k", "2", "--no-cache", "--out",
            str(tmp_path / "run"), *extra]


# -- options and their one-line errors --------------------------------------------------------

def test_the_default_executor_is_local_with_two_ray_actors():
    options = RunOptions()
    assert (options.executor, options.ray_address, options.ray_actors) == ("local", None, 2)


def test_executor_ray_without_ray_installed_names_the_pip_line(no_ray):
    with pytest.raises(ConfigError, match=r"needs Ray, which is not installed here: pip "
                                          r"install 'jurybox\[ray\]'"):
        RunOptions(executor="ray")


def test_cli_executor_ray_without_ray_is_one_line_exit_2_before_any_call(tmp_path, no_ray):
    result = runner.invoke(app, _bench(tmp_path, "--executor", "ray"))
    one_line_error(result, "--executor ray needs Ray", PIP_LINE)
    assert not (tmp_path / "run").exists()


def test_require_ray_without_ray_names_the_pip_line(no_ray):
    with pytest.raises(ConfigError, match=r"pip install 'jurybox\[ray\]'"):
        cluster.require_ray()


@pytest.mark.parametrize("actors", ["0", "-3"])
def test_cli_fewer_than_one_ray_actor_is_one_line_exit_2(tmp_path, actors):
    result = runner.invoke(app, _bench(tmp_path, "--executor", "ray", "--ray-actors", actors))
    one_line_error(result, f"ray_actors (--ray-actors) must be at least 1, got {actors}")


def test_cli_unknown_executor_lists_the_choices(tmp_path):
    result = runner.invoke(app, _bench(tmp_path, "--executor", "dask"))
    one_line_error(result, "executor (--executor) must be one of local, ray, got 'dask'")


def test_cli_ray_address_without_executor_ray_is_refused(tmp_path):
    result = runner.invoke(app, _bench(tmp_path, "--ray-address", "127.0.0.1:6379"))
    one_line_error(result, "--ray-address) is for the Ray executor: add --executor ray")


def test_cli_executor_ray_with_batch_is_refused(tmp_path, fake_ray):
    result = runner.invoke(app, _bench(tmp_path, "--executor", "ray", "--batch"))
    one_line_error(result, "--executor ray makes online calls", "--batch")


def test_cli_unreachable_ray_address_is_one_line_exit_2_before_ray_starts(tmp_path, fake_ray):
    port = _closed_port()
    result = runner.invoke(app, _bench(tmp_path, "--executor", "ray", "--ray-address",
                                       f"127.0.0.1:{port}"))
    line = one_line_error(result, f"--ray-address 127.0.0.1:{port}: cannot connect to "
                                  f"127.0.0.1:{port}", "ray start --head")
    assert "refused" in line.lower()
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("address, message", [
    ("ray://:10001", "names no host"),
    ("head:http", "the port 'http' is not a number"),
    ("head:70000", "the port 70000 is out of range")])
def test_malformed_ray_addresses_are_named(address, message):
    with pytest.raises(ConfigError, match=message):
        address_problem(address)


def test_host_and_port_of_ray_addresses():
    assert cluster._host_port("10.0.0.5:6379") == ("10.0.0.5", 6379)
    assert cluster._host_port("ray://head:10001") == ("head", 10001)
    assert cluster._host_port("ray://head") == ("head", 10001)  # the Ray Client's port
    assert cluster._host_port("head") == ("head", 6379)  # the head node's GCS
    assert cluster._host_port("[::1]:7000") == ("::1", 7000)
    assert cluster._host_port("auto") is None


@contextmanager
def _listener(answer: bytes | None) -> Iterator[int]:
    """A loopback server (its port) that reads what a client sends first and answers
    ``answer`` (None: says nothing), as long as the block runs."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    received: list[bytes] = []

    def serve() -> None:
        try:
            conn, _ = server.accept()
        except OSError:  # closed before anyone came
            return
        with conn:
            try:
                received.append(conn.recv(1024))
                if answer is not None:
                    conn.sendall(answer)
                conn.recv(1024)  # until the client closes
            except OSError:  # it closed with our answer unread: a reset
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        server.close()
        thread.join(5)


#: A gRPC server's first frame: SETTINGS (type 4), no flags, stream 0, one setting (6 bytes).
GRPC_SETTINGS = b"\x00\x00\x06\x04\x00\x00\x00\x00\x00" + b"\x00\x03\x00\x00\x00\x64"


def test_a_grpc_server_at_the_ray_address_has_no_problem():
    with _listener(GRPC_SETTINGS) as port:
        assert address_problem(f"127.0.0.1:{port}") is None


def test_an_http_server_at_the_ray_address_is_not_a_head_node():
    # a user's slip: --ray-address naming the judge's port (or any other service); Ray's own
    # ray.init would retry for about 14 minutes there
    with SimServer(SimJudge(make_items(2))) as server:
        port = server.base_url.split(":")[-1].split("/")[0]
        problem = address_problem(f"127.0.0.1:{port}")
    assert problem == (f"something listens at 127.0.0.1:{port} but it is not a Ray head node "
                       f"(it does not answer as a gRPC server: another service's port?)")


def test_a_silent_listener_at_the_ray_address_is_not_a_head_node():
    with _listener(None) as port:
        problem = address_problem(f"127.0.0.1:{port}", timeout_s=0.2)
    assert problem == (f"127.0.0.1:{port} accepts connections but says nothing within 0.2 s; "
                       f"it is not a Ray head node")


def test_with_rays_tls_only_the_connection_is_checked(monkeypatch):
    monkeypatch.setenv("RAY_USE_TLS", "1")  # its servers expect a TLS handshake first
    with _listener(None) as port:
        assert address_problem(f"127.0.0.1:{port}", timeout_s=0.2) is None


def test_cli_ray_address_at_an_http_server_is_one_line_before_ray_starts(tmp_path, fake_ray):
    with SimServer(SimJudge(make_items(2))) as server:
        port = server.base_url.split(":")[-1].split("/")[0]
        result = runner.invoke(app, _bench(tmp_path, "--executor", "ray", "--ray-address",
                                           f"127.0.0.1:{port}"))
    one_line_error(result, f"--ray-address 127.0.0.1:{port}: something listens at "
                           f"127.0.0.1:{port} but it is not a Ray head node")
    assert not (tmp_path / "run").exists()


def test_ray_address_in_the_environment_is_the_cluster_joined(tmp_path, monkeypatch, fake_ray):
    # as in a Ray job (Ray sets RAY_ADDRESS): not a local Ray started with num_cpus, which Ray
    # refuses next to RAY_ADDRESS ("num_cpus and num_gpus must not be provided")
    port = _closed_port()
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    result = runner.invoke(app, _bench(tmp_path, "--executor", "ray"))
    one_line_error(result, f"RAY_ADDRESS 127.0.0.1:{port}: cannot connect to 127.0.0.1:{port}",
                   "leave RAY_ADDRESS unset for a local Ray")
    monkeypatch.setenv("RAY_ADDRESS", "local")
    assert cluster.cluster_address(None) is None
    monkeypatch.delenv("RAY_ADDRESS")
    assert cluster.cluster_address(None) is None and cluster.cluster_address("local") is None


def test_cli_a_missing_api_key_is_one_line_before_ray_starts(tmp_path, monkeypatch, fake_ray):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    # a host off this machine (a loopback one needs no key); never reached: the key is first
    result = runner.invoke(app, _bench(tmp_path, "--executor", "ray", "--model", "openai/m",
                                       "--base-url", "http://gateway.invalid:9/v1"))
    one_line_error(result, "openai/m needs an API key: export OPENAI_API_KEY=...")


class _FakeRay:
    """A Ray not yet initialized whose ``init`` records its arguments, logs what Ray logs
    when it starts a cluster with token authentication, and raises ``error`` if given."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error, self.inits = error, []  # type: list[dict]

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs) -> None:
        self.inits.append(kwargs)
        logging.getLogger(cluster._TOKEN_LOGGER).warning(
            "Token authentication is enabled for this Ray cluster. Set RAY_AUTH_MODE=disabled "
            "to opt out.")
        logging.getLogger(cluster._TOKEN_LOGGER).warning("another warning from Ray")
        if self.error is not None:
            raise self.error


def test_a_local_ray_takes_at_most_four_actors_a_core(monkeypatch):
    fake = _FakeRay()
    monkeypatch.setattr(cluster, "require_ray", lambda: fake)
    with pytest.raises(ConfigError, match=r"--ray-actors 9 is too many for a local Ray on 2 "
                                          r"cores: at most 8 \(4 a core"):
        cluster.connect(None, num_cpus=2, actors=9)
    assert fake.inits == []  # refused before Ray starts
    cluster.connect(None, num_cpus=2, actors=8)
    # address "local": a new Ray (Ray's ray.init() would join the cluster a `ray start` left
    # in /tmp/ray/ray_current_cluster, and refuse num_cpus there, or wait for a dead one)
    assert fake.inits == [{"address": "local", "num_cpus": 2, "include_dashboard": False,
                           "logging_level": logging.WARNING}]


def test_cli_a_thousand_ray_actors_on_a_local_ray_is_one_line(tmp_path, monkeypatch):
    fake = _FakeRay()
    monkeypatch.setattr(cluster, "require_ray", lambda: fake)
    monkeypatch.setattr(cluster.os, "cpu_count", lambda: 2)
    real = importlib.util.find_spec  # Ray counts as installed (make test runs without it)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name == "ray" else real(name, *a))
    result = runner.invoke(app, _bench(tmp_path, "--executor", "ray", "--ray-actors", "1000"))
    one_line_error(result, "--ray-actors 1000 is too many for a local Ray on 2 cores: at most 8")
    assert fake.inits == [] and not (tmp_path / "run").exists()


def test_rays_token_notice_is_dropped_when_jurybox_starts_ray_and_other_warnings_kept(
        monkeypatch, caplog):
    fake = _FakeRay()
    monkeypatch.setattr(cluster, "require_ray", lambda: fake)
    with caplog.at_level(logging.WARNING, logger=cluster._TOKEN_LOGGER):
        cluster.connect(None, num_cpus=1)
    assert [r.getMessage() for r in caplog.records] == ["another warning from Ray"]
    assert not logging.getLogger(cluster._TOKEN_LOGGER).filters  # removed after ray.init


@pytest.mark.parametrize("address, error, message", [
    ("auto", ConnectionError("Could not find any running Ray instance. Please specify the one "
                             "to connect to by setting the `--address` flag"),
     "--ray-address auto: no Ray cluster is running on this machine; start one (ray start "
     "--head)"),
    (None, RuntimeError("Failed to start GCS.\n Last 0 lines of error files"),
     "a local Ray: Ray could not start or connect: Failed to start GCS.")])
def test_ray_init_failures_are_one_line(monkeypatch, address, error, message):
    monkeypatch.setattr(cluster, "require_ray", lambda: _FakeRay(error))
    with pytest.raises(ConfigError) as caught:
        cluster.connect(address, num_cpus=1)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


# -- recipes ----------------------------------------------------------------------------------

def test_an_openai_compatible_provider_is_rebuilt_with_its_url_secrets_key_and_dialect():
    provider = OpenAICompatibleProvider(
        "llamacpp", "m", "http://bob:s%40cret@127.0.0.1:8080/v1?tenant=a%20b", timeout_s=7.5,
        transport="sdk", dialect="llamacpp", identity={"provider": "local", "gguf": "x"})
    provider.max_concurrency = 1
    recipe = pickle.loads(pickle.dumps(recipe_of(provider)))
    assert recipe.base_url == "http://bob:s%40cret@127.0.0.1:8080/v1?tenant=a%20b"
    rebuilt = recipe.build()
    assert isinstance(rebuilt, OpenAICompatibleProvider)
    assert rebuilt._endpoint == provider._endpoint  # url, shown, user, password, query
    assert (rebuilt.name, rebuilt.model, rebuilt.timeout_s, rebuilt.transport,
            rebuilt.dialect, rebuilt.max_concurrency) == ("llamacpp", "m", 7.5, "sdk",
                                                           "llamacpp", 1)
    assert rebuilt.cache_identity() == {"provider": "local", "gguf": "x"}
    assert "s%40cret" not in repr(recipe)


def test_a_key_travels_in_the_recipe_and_never_in_its_repr():
    provider = OpenAICompatibleProvider("vllm", "m", "http://127.0.0.1:8000/v1",
                                        api_key="sk-secret")
    recipe = recipe_of(provider)
    assert recipe.build().api_key == "sk-secret"
    assert "sk-secret" not in repr(recipe)


def test_a_pool_is_rebuilt_replica_by_replica_with_its_weights_and_limits():
    replicas = [OpenAICompatibleProvider("vllm", "m", f"http://127.0.0.1:{p}/v1")
                for p in (8001, 8002)]
    recipe = recipe_of(PoolProvider(replicas, weights=[1.0, 3.0], limits=[None, 4]))
    assert (recipe.kind, len(recipe.replicas), recipe.weights) == ("pool", 2, (1.0, 3.0))
    rebuilt = recipe.build()
    assert isinstance(rebuilt, PoolProvider)
    assert [(p.base_url, w, x) for p, w, x in rebuilt.replicas()] == [  # type: ignore[attr-defined]
        ("http://127.0.0.1:8001/v1", 1.0, None), ("http://127.0.0.1:8002/v1", 3.0, 4)]


def test_a_provider_the_actors_cannot_rebuild_is_one_line():
    class Fake:
        name, model, simulated = "fake", "m", False

    with pytest.raises(ConfigError, match="cannot send a Fake judge to Ray actors"):
        recipe_of(Fake())  # type: ignore[arg-type]


# -- errors as data ---------------------------------------------------------------------------

def test_a_retryable_error_comes_back_as_itself_with_status_and_retry_after():
    sent = pickle.loads(pickle.dumps(RemoteError.of(RateLimitError("HTTP 429", status=429,
                                                                   retry_after=3.0))))
    error = sent.error()
    assert type(error) is RateLimitError and isinstance(error, RetryableProviderError)
    assert (str(error), error.status, error.retry_after) == ("HTTP 429", 429, 3.0)


def test_config_errors_and_unexpected_exceptions_come_back_as_one_line():
    assert type(RemoteError.of(ConfigError("no key")).error()) is ConfigError
    error = RemoteError.of(KeyError("x")).error()
    assert type(error) is ProviderError and str(error) == "unexpected KeyError: 'x'"


# -- the actor's work, without Ray -------------------------------------------------------------

def _request(text: str) -> ChatRequest:
    return ChatRequest(messages=(Message(role="user", content=text),), max_tokens=64)


def test_the_actor_answers_as_its_provider_and_returns_errors_as_data():
    with SimServer(SimJudge(make_items(2), SimConfig())) as server:
        recipe = recipe_of(server.provider())
        unreachable = ProviderRecipe("openai", "vllm", "m",
                                     f"http://127.0.0.1:{_closed_port()}/v1")

        async def go() -> tuple[object, object, object]:
            actor, dead = JudgeActor(recipe, 0), JudgeActor(unreachable, 1)
            direct = await server.provider().complete(_request("Hello"))
            try:
                return (await actor.complete(_request("Hello"), "q0"), direct,
                        await dead.complete(_request("Hello"), "q0"))
            finally:
                await actor.aclose()
                await dead.aclose()

        answer, direct, failed = asyncio.run(go())
    assert isinstance(answer, ChatResponse) and isinstance(direct, ChatResponse)
    assert answer.text == direct.text  # the same judge, rebuilt in the actor
    assert isinstance(failed, RemoteError) and failed.kind == "RetryableProviderError"
    assert failed.message.startswith("connection failed")


def test_the_actor_keeps_an_items_calls_on_one_replica_of_its_pool():
    with SimServer(SimJudge(make_items(2))) as a, SimServer(SimJudge(make_items(2))) as b:
        recipe = recipe_of(PoolProvider([a.provider(), b.provider()]))

        async def go() -> list[dict]:
            actor = JudgeActor(recipe)
            try:
                for item in ("q0", "q1", "q2", "q3"):
                    for n in range(3):
                        await actor.complete(_request(f"{item} {n}"), item)
                return (await actor.pool_stats() or {})["replicas"]
            finally:
                await actor.aclose()

        stats = asyncio.run(go())
    # 4 items x 3 calls: each item's 3 calls on one replica, so each count is a multiple of 3
    assert sum(r["calls"] for r in stats) == 12
    assert all(r["calls"] % 3 == 0 for r in stats)


# -- routing ------------------------------------------------------------------------------------

def test_an_item_goes_to_one_actor_and_only_a_lost_actors_items_move():
    items = [f"item-{i}" for i in range(600)]
    before = {i: actor_for(i, [0, 1, 2]) for i in items}
    counts = [list(before.values()).count(a) for a in (0, 1, 2)]
    assert all(150 <= c <= 250 for c in counts), counts  # about a third each
    after = {i: actor_for(i, [0, 2]) for i in items}  # actor 1 lost
    assert all(after[i] == before[i] for i in items if before[i] != 1)
    assert all(after[i] in (0, 2) for i in items if before[i] == 1)
    assert {i: actor_for(i, [0, 1, 2]) for i in items} == before  # it comes back: same again


# -- run.json: the executor, and an endpoint pool's counts summed over the actors --------------

def test_a_local_sessions_record_names_its_executor(tmp_path):
    result = runner.invoke(app, _bench(tmp_path))
    assert result.exit_code == 0, result.output
    sessions = json.loads((tmp_path / "run" / "run.json").read_text())["sessions"]
    assert [s["executor"] for s in sessions] == [{"name": "local"}]
    assert "executor" not in json.loads((tmp_path / "run" / "run.json").read_text())["config"]


def test_the_actors_pool_counts_are_summed_per_replica():
    a, b = "http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"
    actor0 = {"items": 5, "items_on_one_replica": 5, "replicas": [
        {"url": a, "calls": 10, "failures": 0, "mean_latency_s": 0.1, "share": 0.6667,
         "cooldowns": 0, "gone": False},
        {"url": b, "calls": 5, "failures": 1, "mean_latency_s": 0.2, "share": 0.3333,
         "cooldowns": 1, "gone": False}]}
    actor1 = {"items": 3, "items_on_one_replica": 2, "replicas": [
        {"url": a, "calls": 4, "failures": 4, "mean_latency_s": None, "share": 0.8,
         "cooldowns": 2, "gone": True},
        {"url": b, "calls": 1, "failures": 0, "mean_latency_s": 0.4, "share": 0.2,
         "cooldowns": 0, "gone": False}]}
    merged = merge_pool_stats([actor0, actor1])
    # a: 14 calls, 4 failed; 10 answered at 0.1 s. b: 6 calls, 1 failed; 4 answered at 0.2 s
    # and 1 at 0.4 s: (0.8 + 0.4) / 5 = 0.24 s. Shares of 20 calls: 0.7 and 0.3
    assert merged == {"items": 8, "items_on_one_replica": 7, "replicas": [
        {"url": a, "calls": 14, "failures": 4, "mean_latency_s": 0.1, "share": 0.7,
         "cooldowns": 2, "gone": True},
        {"url": b, "calls": 6, "failures": 1, "mean_latency_s": 0.24, "share": 0.3,
         "cooldowns": 1, "gone": False}]}
    assert merge_pool_stats([]) == {"items": 0, "items_on_one_replica": 0, "replicas": []}


# -- judge_dataset's batches (no Ray: the batch judge is jurybox.judge) --------------------------

def test_a_dataset_row_without_an_id_is_a_failed_row_with_a_null_item_id():
    # Ray Data fills a column missing from some rows with nulls: the row has "id": None
    rows = [{"id": None, "prompt": "Which?", "candidates": ["a", "b"], "gold": None},
            {"id": 7, "prompt": "Which one?", "candidates": ["yes", "no"], "gold": [0]}]
    judged = _BatchJudge("sim", ["direct"], RunOptions(cache_path=None), {"k": 1})._judge(
        rows, "direct")
    assert [(r["item_id"], r["failed"]) for r in judged] == [(None, True), ("7", False)]
    assert judged[0]["error"].startswith("bad item: field 'id': missing or empty")
