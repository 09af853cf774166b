"""The Ray executor's pieces that need no Ray: its options and their one-line errors, the
recipe an actor rebuilds its judge from, errors travelling back as data, the actor's own
calls, and the item -> actor routing. The runs on Ray are in tests/ray (marker ``ray``)."""

from __future__ import annotations

import asyncio
import importlib.util
import pickle
import socket

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
from jurybox.ray.provider import actor_for
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


def test_a_listening_ray_address_has_no_problem():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert address_problem(f"127.0.0.1:{server.getsockname()[1]}") is None


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
                return await actor.replica_stats() or []
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
