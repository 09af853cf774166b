"""What a run costs: calls and tokens planned before it starts, USD when prices are known."""

from .plan import RunPlan, plan_run
from .prices import PRICES_AS_OF, Price, bundled_price, resolve_price
from .tokens import CHARS_PER_TOKEN, TokenCounter, token_counter

__all__ = ["CHARS_PER_TOKEN", "PRICES_AS_OF", "Price", "RunPlan", "TokenCounter",
           "bundled_price", "plan_run", "resolve_price", "token_counter"]
