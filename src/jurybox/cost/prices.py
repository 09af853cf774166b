"""Token prices: given on the command line, or from a small bundled table (dated)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..errors import ConfigError

__all__ = ["Price", "PRICES_AS_OF", "bundled_price", "resolve_price"]


@dataclass(frozen=True)
class Price:
    """USD per million tokens, input and output; ``source`` says where they came from."""

    input_per_m: float
    output_per_m: float
    source: str

    def usd(self, input_tokens: float, output_tokens: float) -> float:
        """The cost of that many tokens, USD."""
        return (input_tokens * self.input_per_m + output_tokens * self.output_per_m) / 1e6


@lru_cache(maxsize=1)
def _table() -> dict:
    text = resources.files("jurybox").joinpath("data/prices.json").read_text(encoding="utf-8")
    return json.loads(text)


#: When the bundled prices were taken (they change; --price-in/--price-out override them).
PRICES_AS_OF: str = _table()["as_of"]


def bundled_price(model: str) -> Price | None:
    """The bundled list price of ``model`` (``provider/model``), or None when not listed."""
    entry = _table()["models"].get(model)
    if entry is None:
        return None
    return Price(float(entry[0]), float(entry[1]),
                 f"bundled list price as of {PRICES_AS_OF} (may be outdated)")


#: Highest price per million tokens taken, USD: 10,000 is over ten times the dearest list
#: price; more is a typing slip (1e308 made every total inf).
MAX_PRICE = 10_000


def resolve_price(model: str, price_in: float | None, price_out: float | None) -> Price | None:
    """``--price-in``/``--price-out`` when given (both), else the bundled price, else None.

    Raises:
        ConfigError: only one of the two given, or a negative or non-finite price.
    """
    if (price_in is None) != (price_out is None):
        raise ConfigError("--price-in and --price-out go together (USD per million input and "
                          "output tokens)")
    if price_in is not None and price_out is not None:
        for name, value in (("--price-in", price_in), ("--price-out", price_out)):
            if not (math.isfinite(value) and 0 <= value <= MAX_PRICE):
                raise ConfigError(f"{name} must be a number from 0 to {MAX_PRICE:,} (USD per "
                                  f"million tokens), got {value!r}")
        return Price(price_in, price_out, "given (--price-in, --price-out)")
    return bundled_price(model)
