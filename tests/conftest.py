"""Shared fixtures: a loopback simulated judge and fast retries. Tests reach only 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
import signal

import pytest

from jurybox.datasets import ListwiseItem
from jurybox.runner import RetryPolicy
from jurybox.sim import SimConfig, SimJudge, SimServer

FAST_RETRY = RetryPolicy(attempts=6, base_s=0.0)


def make_items(count: int = 6, n: int = 4) -> list[ListwiseItem]:
    """Small synthetic items: candidate 0 is gold."""
    return [ListwiseItem(f"q{i}", f"Question number {i}?",
                         tuple(f"answer {i}.{j}" for j in range(n)), frozenset({0}))
            for i in range(count)]


@pytest.fixture
def sim() -> Callable[..., SimServer]:
    """Factory: ``with sim(items, config) as server`` runs a loopback simulated judge."""
    @contextmanager
    def start(items=(), config: SimConfig | None = None) -> Iterator[SimServer]:
        with SimServer(SimJudge(items, config or SimConfig())) as server:
            yield server
    return start


@pytest.fixture(autouse=True)
def _default_sigint() -> Iterator[None]:
    """Ctrl-C behaves as in a terminal even when the suite runs where SIGINT is ignored (a
    background job, nohup): the interrupt tests send real signals."""
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
