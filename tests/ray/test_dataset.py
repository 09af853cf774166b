"""``jurybox.ray.judge_dataset``: a Ray Data dataset of items in, one row per item and
protocol out; failures are rows, never an aborted dataset; ``write_parquet`` works."""

from __future__ import annotations

import socket

import pytest

import jurybox
from jurybox.errors import ConfigError
from jurybox.ray import JUDGMENT_COLUMNS, judge_dataset
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy
from jurybox.sim import Faults, SimConfig, SimJudge, SimServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]
pytest.importorskip("ray")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ITEMS = [{"id": f"q{i}", "prompt": f"Which is right, case {i}?",
          "candidates": [f"yes {i}", f"no {i}", f"maybe {i}"], "gold": [i % 3]}
         for i in range(10)]
BAD = {"id": "bad", "prompt": "One candidate only?", "candidates": ["alone"], "gold": [0]}


def _by_key(rows):
    return {(r["item_id"], r["protocol"]): r for r in rows}


def test_rows_are_the_judgments_of_jurybox_judge_and_a_bad_item_is_a_failed_row(
        tmp_path, ray_session):
    ds = ray_session.data.from_items([*ITEMS[:5], BAD, *ITEMS[5:]])
    rows = _by_key(judge_dataset(ds, model="sim", protocol=["pcf", "direct"], k=3,
                                 batch_size=4).take_all())
    assert len(rows) == 22  # 11 items x 2 protocols
    assert set(next(iter(rows.values()))) == set(JUDGMENT_COLUMNS)
    for protocol in ("pcf", "direct"):
        want = jurybox.judge(ITEMS, model="sim", protocol=protocol, k=3,
                             out=tmp_path / protocol, options=RunOptions(cache_path=None))
        for j in want.items:
            row = rows[(j.item_id, protocol)]
            assert row["winners"] == list(j.winners)
            assert row["scores"] == list(j.combined or ())
            assert (row["failed"], row["calls"], row["calls_ok"], row["error"]) == (
                False, j.n_calls, j.n_ok, None)
        bad = rows[("bad", protocol)]
        assert bad["failed"] is True and bad["winners"] == [] and bad["scores"] is None
        assert bad["error"] == "bad item: field 'candidates': needs at least 2 candidates, got 1"
    assert rows[("q0", "pcf")]["calls"] == 3 and rows[("q0", "direct")]["calls"] == 1


def test_an_endpoint_that_fails_calls_gives_failed_rows_with_their_errors_not_an_abort(
        tmp_path, ray_session):
    # every call's first attempt answers 500, and each batch gets one attempt a call
    config = SimConfig(faults=Faults(first_500=1))
    with SimServer(SimJudge((), config)) as server:
        ds = ray_session.data.from_items(ITEMS)
        out = judge_dataset(ds, model="vllm/judge", base_url=server.base_url,
                            protocol="direct", batch_size=5,
                            options=RunOptions(cache_path=None,
                                               retry=RetryPolicy(attempts=1, base_s=0)))
        rows = out.take_all()
    assert len(rows) == 10
    assert all(r["failed"] and r["failures"] == ["api"] and r["winners"] == [] for r in rows)
    assert all(r["error"].startswith("gave up after 1 attempts: HTTP 500") for r in rows), rows


def test_an_unreachable_endpoint_fails_every_row_with_the_reason(ray_session):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rows = judge_dataset(ray_session.data.from_items(ITEMS[:4]), model="vllm/judge",
                         base_url=f"http://127.0.0.1:{port}/v1", protocol="pcf", k=2,
                         batch_size=2).take_all()
    assert sorted(r["item_id"] for r in rows) == ["q0", "q1", "q2", "q3"]
    assert all(r["failed"] and r["error"].startswith(f"ProviderError: cannot reach "
                                                     f"http://127.0.0.1:{port}/v1")
               for r in rows), rows


def test_write_parquet_writes_the_rows_as_they_are(tmp_path, ray_session):
    out = judge_dataset(ray_session.data.from_items([*ITEMS[:3], BAD]), model="sim",
                        protocol="pcf", k=2, batch_size=2)
    rows = _by_key(out.take_all())
    out.write_parquet(str(tmp_path / "judgments"))
    table = pq.read_table(tmp_path / "judgments")
    assert table.num_rows == 4
    assert table.schema.field("winners").type == pa.list_(pa.int64())
    assert table.schema.field("scores").type == pa.list_(pa.float64())
    assert _by_key(table.to_pylist()) == rows


def test_bad_settings_are_refused_before_any_batch_runs(ray_session):
    ds = ray_session.data.from_items(ITEMS)
    with pytest.raises(ConfigError, match="protocol must be one of"):
        judge_dataset(ds, model="sim", protocol="best-of")
    with pytest.raises(ConfigError, match=r"k must be an integer, got 'seven' \(str\)"):
        judge_dataset(ds, model="sim", k="seven")
    with pytest.raises(ConfigError, match="executor='local'"):
        judge_dataset(ds, model="sim", options=RunOptions(executor="ray"))


def test_the_batches_run_on_a_fixed_actor_pool_without_rays_deprecated_concurrency(
        ray_session):
    # Ray Data >= 2.51 warns on every map_batches(concurrency=...): the pool is compute=
    seen: dict = {}

    class Recording:
        def map_batches(self, fn, **kwargs):
            seen.update(kwargs)
            return "judgments"

    assert judge_dataset(Recording(), model="sim", concurrency=3) == "judgments"
    assert "concurrency" not in seen
    pool = seen["compute"]
    assert isinstance(pool, ray_session.data.ActorPoolStrategy)
    assert (pool.min_size, pool.max_size) == (3, 3)
