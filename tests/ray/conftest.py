"""The Ray tests: one local Ray for the whole session (about 9 s to start on 2 cores); skipped
where Ray is not installed (``make test-ray`` installs the [ray] extra)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jurybox.ray.cluster import loopback_ray

# tests reach no address but 127.0.0.1, Ray's own ports included: set before any test module
# imports Ray (Ray reads it on import)
loopback_ray()


@pytest.fixture(scope="session")
def ray_session() -> Iterator[Any]:
    """``ray.init(num_cpus=2, include_dashboard=False)`` once; the runs join it (each test
    module skips itself where Ray is not installed)."""
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        # "local": a new Ray, never a `ray start` cluster of this machine (/tmp/ray)
        ray.init(address="local", num_cpus=2, include_dashboard=False,
                 logging_level="WARNING")
    assert ray.util.get_node_ip_address() == "127.0.0.1"
    yield ray
    ray.shutdown()


def decisions(run: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """A run directory's decisions: (item id, protocol) -> its items.jsonl record (the last
    one of each, as a resumed run reads them)."""
    out = {}
    with (run / "items.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            out[(record["item_id"], record["protocol"])] = record
    return out


def paid_calls(run: Path) -> int:
    """Answers received from the endpoint (calls.jsonl: not from the cache, no error)."""
    with (run / "calls.jsonl").open(encoding="utf-8") as fh:
        calls = [json.loads(line) for line in fh]
    return sum(1 for c in calls if not c["cached"] and c.get("error") is None)
