"""``--dry-run``: print what a run would cost, and the cost line after a run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..terminal import safe_text
from ._common import console

if TYPE_CHECKING:
    from ..cost import Price, RunPlan


def _say(text: str) -> None:
    # "[estimate: ...]" is not markup; a dataset's name may hold control characters
    console.print(safe_text(text), highlight=False, markup=False)


def print_plan(plan: RunPlan, *, model: str, what: str, batch: bool = False) -> None:
    """The dry run's report: calls, tokens, prefix share, USD (no model call was made); with
    ``batch`` (``--batch``), the batch rounds and which price the run pays."""
    calls = (f"{plan.calls_max:,}" if plan.calls_min == plan.calls_max
             else f"at most {plan.calls_max:,} (at least {plan.calls_min:,}: adaptive or "
                  f"gated judges stop early)")
    tokens = "tokens" if plan.exact_tokens else "tokens (ESTIMATED)"
    least = (f", {plan.input_tokens_min:,} at least"
             if plan.input_tokens_min != plan.input_tokens_max else "")
    _say(f"dry run: {what}, judge {model}; no model call was made")
    _say(f"  units: {plan.units:,}   calls: {calls} (re-asks not included: at most one per "
         f"call)")
    _say(f"  input {tokens}: {plan.input_tokens_max:,} at most{least}   [{plan.tokenizer}]")
    _say(f"  output tokens: {plan.output_tokens_max:,} at most (max_tokens per call)")
    _say(f"  shared prompt prefix: {100 * plan.shared_prefix_share:.1f}% of input tokens "
         f"(what a provider's prefix cache could serve, at most)")
    usd = plan.usd_range()
    if model == "sim" and plan.price is None:
        _say("  USD: 0 (the simulated judge runs on this machine)")
    elif usd is None or plan.price is None:
        _say("  USD: no price known for this model; pass --price-in and --price-out (USD per "
             "million tokens)")
    else:
        figures = _usd_figures(usd, plan.batch_usd_range(), plan.price)
        _say(f"  USD: {figures} (at {plan.price.input_per_m:g} in / "
             f"{plan.price.output_per_m:g} out per million tokens, {plan.price.source}"
             f"{_batch_source(plan.price)}; least: fewest calls and no output; most: every "
             f"call with its full output budget)")
    if batch:
        rounds = plan.rounds_max
        pays = ("this run pays the batch price" if plan.price is not None
                and plan.price.batch_share is not None else "no batch price is known")
        _say(f"  batch rounds: at most {rounds} per item, one more for each re-ask of an "
             f"unusable answer; each round waits for its batches to end (the provider's "
             f"window: up to 24 h each); {pays}")


def _usd_figures(usd: tuple[float, float], batch: tuple[float, float] | None,
                 price: Price) -> str:
    """``least to most``, or, with a batch rate, ``online least to most, batch least to most
    (50%)``."""
    online = f"{usd[0]:,.4f} to {usd[1]:,.4f}"
    if batch is None or price.batch_share is None:
        return online
    return (f"online {online}, batch {batch[0]:,.4f} to {batch[1]:,.4f} "
            f"({_share(price.batch_share)})")


def _share(share: float) -> str:
    """A batch share as a percentage: 0.5 -> ``50%``."""
    return f"{100 * share:g}%"


def _batch_source(price: Price) -> str:
    return ("" if price.batch_share is None else
            f"; batch: {_share(price.batch_share)} of it, {price.batch_source}")


def cost_line(result: Any) -> None:
    """After a run: what it spent (every session), when a price was known."""
    if getattr(result, "cost_usd", None) is not None:
        from ..reports.notes import spent_note  # the report says it in the same words

        _say(spent_note(result.cost_usd, getattr(result, "batch_usd", None)))


def plan_for(units: Any, protocols: list, *, model: str, price: Price | None) -> RunPlan:
    from ..cost import plan_run, token_counter

    return plan_run(units, protocols, counter=token_counter(model), price=price)


def print_dry_run(units: Any, protocols: list, *, model: str, price: Price | None, what: str,
                  options: Any) -> None:
    """``--dry-run``: what the run would ask for and cost (:func:`plan_for`, printed by
    :func:`print_plan`); ``options``: the run's RunOptions (its batch mode)."""
    print_plan(plan_for(units, protocols, model=model, price=price), model=model, what=what,
               batch=options.batch is not None)
