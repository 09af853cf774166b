"""Token prices: given on the command line, or from a small bundled table (dated).

A price is online (one request, one answer) and, for a provider with a batch API, a batch
rate: the share of the online price a call answered through that API costs (OpenAI's Batch
API and Anthropic's Message Batches: 0.5, input and output alike; bundled per provider, with
the date and the source of the figure). Providers without a batch API (the simulated judge,
the local judge, an OpenAI-compatible server) have no batch rate unless one is given
(``--price-batch``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

from ..errors import ConfigError

__all__ = ["Price", "PRICES_AS_OF", "bundled_batch_share", "bundled_price", "resolve_price",
           "with_batch_rate"]


@dataclass(frozen=True)
class Price:
    """USD per million tokens, input and output; ``source`` says where they came from.

    Attributes:
        input_per_m, output_per_m: online USD per million input (prompt) and output
            (completion) tokens, >= 0.
        source: where those two came from (the bundled table and its date, or given).
        batch_share: what a call answered through the provider's batch API costs, as a share
            of the online price (0 to 1; 0.5: half), input and output alike; None when the
            provider has no batch API known (no batch rate).
        batch_source: where ``batch_share`` came from ('' when None).
    """

    input_per_m: float
    output_per_m: float
    source: str
    batch_share: float | None = None
    batch_source: str = ""

    def usd(self, input_tokens: float, output_tokens: float, *, batch: bool = False) -> float:
        """The cost of that many tokens, USD: online, or at the batch rate (``batch``): the
        online cost times ``batch_share``.

        Raises:
            ValueError: ``batch`` asked of a price with no batch rate (``batch_share`` None).
        """
        online = (input_tokens * self.input_per_m + output_tokens * self.output_per_m) / 1e6
        if not batch:
            return online
        if self.batch_share is None:
            raise ValueError(f"no batch rate known for this price ({self.source})")
        return online * self.batch_share


@lru_cache(maxsize=1)
def _table() -> dict:
    text = resources.files("jurybox").joinpath("data/prices.json").read_text(encoding="utf-8")
    return json.loads(text)


#: When the bundled prices were taken (they change; --price-in/--price-out override them).
PRICES_AS_OF: str = _table()["as_of"]


def bundled_batch_share(model: str) -> tuple[float, str] | None:
    """The bundled batch rate of ``model``'s provider (the part of ``provider/model`` before
    the slash): (share of the online price, where it came from), or None when the provider
    has no batch API in the table (``sim``, ``local``, ``vllm`` ...)."""
    provider = model.partition("/")[0]
    entry = _table()["batch"].get(provider)
    if entry is None:
        return None
    return float(entry["share"]), f"bundled {provider} batch rate as of {entry['as_of']}"


def bundled_price(model: str) -> Price | None:
    """The bundled list price of ``model`` (``provider/model``), or None when not listed; with
    its provider's batch rate when the table has one."""
    entry = _table()["models"].get(model)
    if entry is None:
        return None
    online = Price(float(entry[0]), float(entry[1]),
                   f"bundled list price as of {PRICES_AS_OF} (may be outdated)")
    return with_batch_rate(online, model)


#: Highest price per million tokens taken, USD: 10,000 is over ten times the dearest list
#: price; more is a typing slip (1e308 made every total inf).
MAX_PRICE = 10_000


def with_batch_rate(price: Price, model: str, share: float | None = None) -> Price:
    """``price`` with a batch rate: ``share`` when given (``--price-batch``, a jury judge's
    ``price_batch``), else the one ``price`` has, else the bundled rate of ``model``'s
    provider (none for a provider without a batch API)."""
    if share is not None:
        return replace(price, batch_share=share, batch_source="given (--price-batch)")
    if price.batch_share is not None:
        return price
    bundled = bundled_batch_share(model)
    if bundled is None:
        return price
    return replace(price, batch_share=bundled[0], batch_source=bundled[1])


def resolve_price(model: str, price_in: float | None, price_out: float | None,
                  price_batch: float | None = None) -> Price | None:
    """``--price-in``/``--price-out`` when given (both), else the bundled price, else None;
    its batch rate ``price_batch`` when given, else the bundled rate of ``model``'s provider
    (given online prices keep the provider's batch share: the batch API halves whatever the
    online price is).

    Raises:
        ConfigError: only one of the two given, a negative or non-finite price, or a batch
            share outside 0 to 1.
    """
    if (price_in is None) != (price_out is None):
        raise ConfigError("--price-in and --price-out go together (USD per million input and "
                          "output tokens)")
    if price_batch is not None and not (math.isfinite(price_batch) and 0 <= price_batch <= 1):
        raise ConfigError(f"--price-batch must be a share of the online price from 0 to 1 "
                          f"(0.5: half), got {price_batch!r}")
    if price_in is not None and price_out is not None:
        for name, value in (("--price-in", price_in), ("--price-out", price_out)):
            if not (math.isfinite(value) and 0 <= value <= MAX_PRICE):
                raise ConfigError(f"{name} must be a number from 0 to {MAX_PRICE:,} (USD per "
                                  f"million tokens), got {value!r}")
        online: Price | None = Price(price_in, price_out, "given (--price-in, --price-out)")
    else:
        online = bundled_price(model)
    return None if online is None else with_batch_rate(online, model, price_batch)
