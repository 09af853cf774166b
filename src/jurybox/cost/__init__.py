"""What a run costs: calls and tokens planned before it starts, USD when prices are known."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["CHARS_PER_TOKEN", "PRICES_AS_OF", "Price", "RunPlan", "TokenCounter",
           "bundled_batch_share", "bundled_price", "plan_run", "resolve_price",
           "run_cost", "token_counter", "with_batch_rate"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .plan import RunPlan, plan_run
    from .prices import (PRICES_AS_OF, Price, bundled_batch_share, bundled_price,
                         resolve_price, with_batch_rate)
    from .spent import run_cost
    from .tokens import CHARS_PER_TOKEN, TokenCounter, token_counter
