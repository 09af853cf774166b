"""``RunOptions``: how a run talks to its endpoint, one frozen typed object.

Every judging command (``bench``, ``personalize``, ...) takes the same options, declared once
in the CLI (``jurybox.cli._options``) and carried here as typed fields to the engine, the
provider and the runner. Defaults are the module constants below, written nowhere else.
None of these options changes a judge's answer, so none is part of a run's configuration: a
run may resume with another concurrency or timeout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from ..batch.options import BATCH_WINDOW, BatchOptions
from ..cost.prices import Price
from ..errors import ConfigError
from ..fields import check_fields
from ..limits import (DEFAULT_MAX_ANSWER_CHARS, MAX_ANSWER_CHARS, MAX_CONCURRENCY, MAX_TIMEOUT_S,
                      MAX_WINDOW)
from ..providers.endpoints import Replica
from ..providers.transport import Transport
from ..runner.retry import RetryPolicy

__all__ = ["RunOptions", "DEFAULT_EXECUTOR", "DEFAULT_RAY_ACTORS", "EXECUTORS", "Executor",
           "DEFAULT_CONCURRENCY", "DEFAULT_TIMEOUT_S", "DEFAULT_ATTEMPTS",
           "DEFAULT_ABORT_AFTER", "DEFAULT_STRUCTURED", "DEFAULT_TRANSPORT", "MAX_CONCURRENCY",
           "MAX_REPLICAS", "MAX_TIMEOUT_S", "MAX_WINDOW"]

#: Model calls in flight at once.
DEFAULT_CONCURRENCY = 16
#: Per-request timeout, seconds.
DEFAULT_TIMEOUT_S = 60.0
#: Attempts per call, the first included (429, 5xx and timeouts are retried).
DEFAULT_ATTEMPTS = RetryPolicy().attempts
#: Most local judges one run starts (``--replicas``): each loads the model into memory.
MAX_REPLICAS = 16
#: A run stops when this many calls in a row fail at the API after their retries.
DEFAULT_ABORT_AFTER = 25
#: HTTP client for OpenAI-compatible endpoints: the lean aiohttp POST.
DEFAULT_TRANSPORT: Transport = "aiohttp"
#: Structured outputs: the answer schema for real endpoints, off for the simulated judge.
#: How a run asks for structured output (see :mod:`jurybox.run.structured`).
StructuredMode = Literal["auto", "json-schema", "json-object", "off"]
STRUCTURED_MODES: tuple[StructuredMode, ...] = ("auto", "json-schema", "json-object", "off")
DEFAULT_STRUCTURED: StructuredMode = "auto"
#: Where the judge's calls are made: in this process, or by Ray actors (:mod:`jurybox.ray`).
Executor = Literal["local", "ray"]
EXECUTORS: tuple[Executor, ...] = ("local", "ray")
DEFAULT_EXECUTOR: Executor = "local"
#: Ray actors making the calls with ``executor="ray"``.
DEFAULT_RAY_ACTORS = 2


@dataclass(frozen=True)
class RunOptions:
    """How to run, not what to judge.

    Attributes:
        concurrency: most model calls in flight at once, 1 to :data:`MAX_CONCURRENCY`.
        retry: attempts and backoff per call.
        timeout_s: per-request timeout, seconds, > 0 and at most :data:`MAX_TIMEOUT_S`.
        transport: ``aiohttp`` (lean, the default) or ``sdk`` (the openai SDK).
        cache_path: the SQLite response cache, or None for no cache.
        abort_after: stop after this many API failures in a row (None: never).
        window: items being judged at once, 1 to :data:`MAX_WINDOW` (default:
            ``concurrency``). Items are read,
            judged, written and dropped through this window, so memory does not grow with
            the dataset.
        structured: ``auto``, ``json-schema``, ``json-object`` or ``off`` (see
            :mod:`jurybox.run.structured`).
        price: USD per million tokens, for the summary's cost line (None: no USD figure).
        batch: send the calls as provider batches (:mod:`jurybox.batch`), or None (online).
            The window is then :data:`~jurybox.batch.options.BATCH_WINDOW` unless given.
        endpoints: replicas of the judge's model, judged through as one endpoint pool
            (:class:`~jurybox.providers.pool.PoolProvider`; ``--base-url`` several times or
            ``--endpoints FILE``: :func:`~jurybox.run.endpoint.split_endpoints`); empty: the
            config's one base URL.
        replicas: local judges to start for ``--model local`` (1 to :data:`MAX_REPLICAS`),
            judged through as one pool.
        executor: ``local`` (the calls are made in this process) or ``ray`` (by
            ``ray_actors`` Ray actors; this process still writes the cache and the run
            directory: :mod:`jurybox.ray`; needs ``pip install 'jurybox[ray]'``).
        ray_address: the Ray cluster to join (``host:port``, ``ray://host:port``, ``auto``),
            or None for ``RAY_ADDRESS`` if set, else a local Ray (``local``: a local Ray);
            only with ``executor="ray"``.
        ray_actors: Ray actors making the calls, >= 1 (``executor="ray"``; a local Ray that
            jurybox starts takes at most 4 a core).
        max_answer_chars: the answer budget, characters, 1 to :data:`MAX_ANSWER_CHARS`: a
            judge's answer longer than this is a recorded parse failure saying so (its
            length, the budget), unread; within it the verdict is found wherever it is.

    Raises:
        ConfigError: a value out of range (the message names the parameter).
    """

    concurrency: int = DEFAULT_CONCURRENCY
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout_s: float = DEFAULT_TIMEOUT_S
    transport: Transport = DEFAULT_TRANSPORT
    cache_path: Path | None = None
    abort_after: int | None = DEFAULT_ABORT_AFTER
    window: int | None = None
    price: Price | None = None
    structured: StructuredMode = DEFAULT_STRUCTURED
    batch: BatchOptions | None = None
    endpoints: tuple[Replica, ...] = ()
    replicas: int = 1
    executor: Executor = DEFAULT_EXECUTOR
    ray_address: str | None = None
    ray_actors: int = DEFAULT_RAY_ACTORS
    max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS

    def __post_init__(self) -> None:
        if isinstance(self.endpoints, (str, os.PathLike)) or (
                isinstance(self.endpoints, (list, tuple))
                and any(isinstance(e, (str, os.PathLike)) for e in self.endpoints)):
            raise ConfigError(
                f"endpoints takes Replica values, got {self.endpoints!r:.80}: for an endpoints "
                f"file, tuple(load_endpoints(path)); for URLs, tuple(parse_base_urls(urls)) "
                f"(both in jurybox.providers.endpoints); or jurybox.judge(..., "
                f"endpoints=path) or base_url=[url, ...]")
        check_fields(self)  # ConfigError naming a field of the wrong kind
        if not 1 <= self.concurrency <= MAX_CONCURRENCY:
            raise ConfigError(f"concurrency must be between 1 and {MAX_CONCURRENCY:,}, got "
                              f"{self.concurrency:,}")
        if not 0 < self.timeout_s <= MAX_TIMEOUT_S:  # NaN fails too
            raise ConfigError(f"timeout_s must be a finite number of seconds > 0, at most "
                              f"{MAX_TIMEOUT_S:g}, got {self.timeout_s}")
        if self.transport not in get_args(Transport):
            raise ConfigError(f"transport must be one of {', '.join(get_args(Transport))}, got "
                              f"{self.transport!r}")
        if self.abort_after is not None and self.abort_after < 1:
            raise ConfigError(f"abort_after must be >= 1 or None, got {self.abort_after}")
        if self.window is not None and not 1 <= self.window <= MAX_WINDOW:
            raise ConfigError(f"window must be between 1 and {MAX_WINDOW:,}, got "
                              f"{self.window:,}")
        if not 1 <= self.max_answer_chars <= MAX_ANSWER_CHARS:
            raise ConfigError(f"max_answer_chars (--max-answer-chars) must be between 1 and "
                              f"{MAX_ANSWER_CHARS:,}, got {self.max_answer_chars:,}")
        if not 1 <= self.replicas <= MAX_REPLICAS:
            raise ConfigError(f"replicas must be between 1 and {MAX_REPLICAS}, got "
                              f"{self.replicas:,}")
        if self.structured not in STRUCTURED_MODES:
            raise ConfigError(f"structured must be one of {', '.join(STRUCTURED_MODES)}, got "
                              f"{self.structured!r}")
        self._check_executor()

    def _check_executor(self) -> None:
        """The executor options (ConfigError naming the option); with ``ray``, Ray must be
        installed (looked up, not imported)."""
        if self.executor not in EXECUTORS:
            raise ConfigError(f"executor (--executor) must be one of {', '.join(EXECUTORS)}, "
                              f"got {self.executor!r}")
        if self.ray_actors < 1:
            raise ConfigError(f"ray_actors (--ray-actors) must be at least 1, got "
                              f"{self.ray_actors}")
        if self.executor == "local":
            if self.ray_address is not None:
                raise ConfigError("ray_address (--ray-address) is for the Ray executor: add "
                                  "--executor ray, or leave it unset")
            return
        if self.ray_address is not None and not self.ray_address.strip():
            raise ConfigError("ray_address (--ray-address) is empty; give the cluster's "
                              "address (host:6379, ray://host:10001, auto) or leave it unset "
                              "for a local Ray")
        if self.batch is not None:
            raise ConfigError("--executor ray makes online calls from Ray actors, and --batch "
                              "sends batches from this process: use one of them")
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise ConfigError("--executor ray needs Ray, which is not installed here: "
                              "pip install 'jurybox[ray]' (or use --executor local)")

    @property
    def items_in_flight(self) -> int:
        """The window: ``window``, else ``concurrency`` (batch mode: ``BATCH_WINDOW``)."""
        return self.window or (BATCH_WINDOW if self.batch is not None else self.concurrency)
