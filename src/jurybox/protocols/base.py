"""What every judging protocol provides, and the registry that builds them by name.

A protocol receives an item and a way to make calls, and returns a typed decision::

    decision = await protocol.judge(item, calls)

so it may call in stages (rubric gating asks a dimension only when its prerequisite passed).
Protocols whose calls are all known up front (listwise, pairwise) plan them, gather them and
decide (:class:`PlannedProtocol`). Every protocol also declares the JSON schema of its answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, TypeVar, cast, runtime_checkable

from ..errors import ConfigError, did_you_mean
from ..providers import ChatRequest
from ..runner import Outcome

__all__ = ["PlannedCall", "Calls", "JudgingProtocol", "PlannedProtocol", "ProtocolClass", "Task",
           "register",
           "build_protocol", "protocol_label", "protocol_names", "protocol_class", "PROTOCOLS"]

#: Which kind of item a protocol judges.
Task = Literal["listwise", "pairwise", "rubric"]
T = TypeVar("T")


@dataclass(frozen=True)
class PlannedCall:
    """One call a protocol needs: shown order, labels, the request and how to read the answer.

    Attributes:
        call_id: e.g. ``"perm0"`` (unique within an item and protocol).
        order: candidate (or response) indices in shown order (``()`` for rubric calls).
        labels: shown labels, ``('A', 'B', ...)``.
        request: the chat request.
        parse: raw text -> judgment; raises ParseError when the text cannot be used.
        schema: the JSON schema of the answer (sent to servers that take one).
        meta: extra JSON-able metadata for calls.jsonl (which examples were shown, ...).
        reask: what a re-ask after unusable output asks for; None: the JSON object.
    """

    call_id: str
    order: tuple[int, ...]
    labels: tuple[str, ...]
    request: ChatRequest
    parse: Callable[[str], Any]
    schema: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    reask: str | None = None


@runtime_checkable
class Calls(Protocol):
    """How a protocol obtains judgments for one item (given to it by the run engine)."""

    async def ask(self, call: PlannedCall) -> Outcome[Any]:
        """One judgment: the parsed value, or a recorded failure (never an exception)."""
        ...

    async def gather(self, calls: Sequence[PlannedCall]) -> list[Outcome[Any]]:
        """Several judgments at once, in the order given."""
        ...


class JudgingProtocol(Protocol):
    """A judging protocol.

    Attributes:
        name: its name in tables, items.jsonl and run.json (the registry name, or a
            condition such as ``personalized@2`` for rubric judges).
        task: which items it takes.
    """

    name: str
    task: Task

    def params(self) -> dict[str, Any]:
        """The arguments it was built with (recorded in run.json)."""
        ...

    def answer_schema(self, item: Any) -> dict[str, Any]:
        """The JSON schema of its answers for ``item`` (the first stage's, for staged ones)."""
        ...

    async def judge(self, item: Any, calls: Calls) -> Any:
        """The decision on ``item`` (a dataclass with ``to_record()``)."""
        ...


@dataclass(frozen=True)
class CallBudget:
    """What judging one item may cost, known before any call (``--dry-run``).

    Attributes:
        calls: every call the protocol may ask for the item (at most; staged protocols ask
            fewer when a stage ends early, adaptive ones when the rule stops).
        least: the fewest calls it can ask (len(calls) unless it can stop early).
    """

    calls: list[PlannedCall]
    least: int


class PlannedProtocol:
    """A protocol whose calls are all known before any is made: plan, gather, decide."""

    ARGS: ClassVar[tuple[str, ...]] = ()
    name: str = ""
    task: Task = "listwise"

    def plan(self, item: Any) -> list[PlannedCall]:
        raise NotImplementedError

    def decide(self, item: Any, calls: list[PlannedCall], outcomes: list[Outcome[Any]]) -> Any:
        raise NotImplementedError

    def answer_schema(self, item: Any) -> dict[str, Any]:
        schema = self.plan(item)[0].schema
        return schema if schema is not None else {}

    async def judge(self, item: Any, calls: Calls) -> Any:
        planned = self.plan(item)
        return self.decide(item, planned, await calls.gather(planned))

    def budget(self, item: Any) -> CallBudget:
        """Every planned call, all of them asked."""
        planned = self.plan(item)
        return CallBudget(planned, len(planned))


class ProtocolClass(Protocol):
    """What the registry holds: a protocol class, its task and the arguments it takes."""

    task: Task
    ARGS: tuple[str, ...]

    def __call__(self, *args: Any, **kwargs: Any) -> JudgingProtocol: ...


PROTOCOLS: dict[str, ProtocolClass] = {}


def register(name: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: make a protocol buildable by name."""
    def deco(cls: type[T]) -> type[T]:
        PROTOCOLS[name] = cast(ProtocolClass, cls)
        return cls
    return deco


def protocol_names(task: str | None = None) -> list[str]:
    """Registered protocol names, sorted; only those for ``task`` when given."""
    return sorted(n for n, cls in PROTOCOLS.items() if task is None or cls.task == task)


def protocol_class(name: str) -> ProtocolClass:
    """The registered class of ``name``.

    Raises:
        ConfigError: unknown name (the message lists the known ones).
    """
    if name not in PROTOCOLS:
        raise ConfigError(f"unknown protocol {name!r}{did_you_mean(name, PROTOCOLS)} "
                          f"(choose from {', '.join(sorted(PROTOCOLS))})")
    return PROTOCOLS[name]


def build_protocol(name: str, **kwargs: Any) -> JudgingProtocol:
    """Build a registered protocol from keyword arguments it takes (``ARGS``).

    A None value means the protocol's default.

    Raises:
        ConfigError: unknown name, an argument the protocol does not take (the message lists
            those it does), a required one missing, or a value out of range.
    """
    cls = protocol_class(name)
    accepted = cls.ARGS
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:
        raise ConfigError(f"protocol {name!r} takes no argument {', '.join(map(repr, unknown))}"
                          f"; it takes {', '.join(accepted) or 'none'}")
    try:
        return cls(**{k: v for k, v in kwargs.items() if v is not None})
    except (TypeError, ValueError) as exc:  # a missing argument or a value out of range
        raise ConfigError(f"protocol {name!r}: {exc}") from None


def protocol_label(protocol: JudgingProtocol) -> str:
    """A protocol's name in tables, with its combination rule or adaptive mode when it has
    one: ``"both-orders (strict)"``, ``"pcf (exact)"``."""
    params = protocol.params()
    rule = params.get("rule") or (params.get("adaptive") if params.get("adaptive") not in (
        None, "off") else None)
    return f"{protocol.name} ({rule})" if rule else protocol.name
