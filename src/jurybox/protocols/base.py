"""What every listwise protocol provides, and the registry that builds them by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..datasets import ListwiseItem
from ..providers import ChatRequest
from ..runner import Outcome

__all__ = ["PlannedCall", "ListwiseDecision", "JudgingProtocol", "register", "build_protocol",
           "protocol_names", "PROTOCOLS"]


@dataclass(frozen=True)
class PlannedCall:
    """One call a protocol needs: shown order, labels, the request and how to read the answer.

    Attributes:
        call_id: e.g. ``"perm0"`` (unique within an item and protocol).
        order: candidate (or response) indices in shown order.
        labels: shown labels, ``('A', 'B', ...)``.
        request: the chat request.
        parse: raw text -> judgment; raises ParseError when the text cannot be used.
    """

    call_id: str
    order: tuple[int, ...]
    labels: tuple[str, ...]
    request: ChatRequest
    parse: Callable[[str], Any]


@dataclass(frozen=True)
class ListwiseDecision:
    """A protocol's verdict on one item (one line of items.jsonl).

    Attributes:
        item_id, protocol: what was judged, how.
        n_candidates: the item's n.
        n_calls: calls planned; n_ok: calls that gave a usable judgment.
        winners: winning candidate indices (empty when the item failed).
        credit: share of winners that are gold, in [0, 1]; None when no call succeeded.
        combined: C_i per candidate (None when failed).
        top_picks: per successful run, the candidate ranked first.
        top_positions: per successful run, the shown position (0-based) of that candidate.
        failures: failure kinds of the calls that failed (``api``, ``parse``, ``refusal``).
    """

    item_id: str
    protocol: str
    n_candidates: int
    n_calls: int
    n_ok: int
    winners: tuple[int, ...]
    credit: float | None
    gold: tuple[int, ...]
    combined: tuple[float, ...] | None = None
    top_picks: tuple[int, ...] = ()
    top_positions: tuple[int, ...] = ()
    failures: tuple[str, ...] = field(default_factory=tuple)

    @property
    def failed(self) -> bool:
        return self.credit is None


class JudgingProtocol(Protocol):
    """A judging protocol: plans calls for an item, then decides from their outcomes.

    Attributes:
        name: registry name.
        task: ``"listwise"`` or ``"pairwise"`` (which items it takes).
    """

    name: str
    task: str

    def params(self) -> dict[str, Any]:
        """The arguments it was built with (recorded in run.json)."""
        ...

    def plan(self, item: ListwiseItem) -> list[PlannedCall]:
        ...

    def decide(self, item: ListwiseItem, calls: list[PlannedCall],
               outcomes: list[Outcome]) -> ListwiseDecision:
        ...


PROTOCOLS: dict[str, Callable[..., JudgingProtocol]] = {}


def register(name: str) -> Callable:
    """Class decorator: make a protocol buildable by name."""
    def deco(cls: Callable[..., JudgingProtocol]) -> Callable[..., JudgingProtocol]:
        PROTOCOLS[name] = cls
        return cls
    return deco


def protocol_names(task: str | None = None) -> list[str]:
    """Registered protocol names, sorted; only those for ``task`` when given."""
    return sorted(n for n, cls in PROTOCOLS.items() if task is None or cls.task == task)


def build_protocol(name: str, **kwargs: Any) -> JudgingProtocol:
    """Build a registered protocol; keyword arguments it does not take are ignored, and so is
    a None value (the protocol's default applies).

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; choose from {sorted(PROTOCOLS)}")
    cls = PROTOCOLS[name]
    accepted = getattr(cls, "ARGS", ())
    return cls(**{k: v for k, v in kwargs.items() if k in accepted and v is not None})
