"""What a run spent: its token totals (over every session) at a price, online and batch apart."""

from __future__ import annotations

from typing import Any

from .prices import Price

__all__ = ["run_cost"]


def run_cost(price: Price, totals: dict[str, Any]) -> dict[str, Any]:
    """summary.json's ``cost`` of a run whose token totals (run.json's ``totals``: the sum
    over its sessions, :meth:`jurybox.runner.Totals.as_dict`) are ``totals``.

    Online tokens (``prompt_tokens`` - ``batch_prompt_tokens``, likewise completion) cost
    the online price; batch tokens cost ``price.batch_share`` of it. Cache hits made no call
    and are in neither. Returns ``usd`` (the total), the token counts and the price used and,
    when the run made batch calls, ``online_usd``, ``batch_usd`` (they add up to ``usd``),
    the batch token counts and the batch share with its source. A price with no batch rate
    prices batch tokens at the online rate (an upper bound) and says so
    (``batch_share`` None).

    >>> run_cost(Price(2.5, 10.0, "t", 0.5, "b"), {"prompt_tokens": 2_000_000,
    ...     "completion_tokens": 200_000, "batch_calls": 3, "batch_prompt_tokens": 1_000_000,
    ...     "batch_completion_tokens": 100_000})["batch_usd"]
    1.75
    """
    prompt, completion = totals.get("prompt_tokens", 0), totals.get("completion_tokens", 0)
    cost: dict[str, Any] = {
        "usd": round(price.usd(prompt, completion), 6), "prompt_tokens": prompt,
        "completion_tokens": completion,
        "usd_per_million": [price.input_per_m, price.output_per_m],
        "price_source": price.source}
    if not totals.get("batch_calls"):
        return cost
    batch_prompt = totals.get("batch_prompt_tokens", 0)
    batch_completion = totals.get("batch_completion_tokens", 0)
    online = price.usd(prompt - batch_prompt, completion - batch_completion)
    priced = price.batch_share is not None
    batch = price.usd(batch_prompt, batch_completion, batch=priced)
    return {**cost, "usd": round(online + batch, 6), "online_usd": round(online, 6),
            "batch_usd": round(batch, 6), "batch_calls": totals["batch_calls"],
            "batch_prompt_tokens": batch_prompt, "batch_completion_tokens": batch_completion,
            "batch_share": price.batch_share,
            "batch_price_source": price.batch_source if priced else
            "no batch rate known: batch tokens priced at the online rate (an upper bound)"}
