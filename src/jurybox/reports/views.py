"""Typed per-item views of a run: what each order showed, what the judge said, what was decided.

Built from a run directory's recorded files only (no model calls); :mod:`.reader` streams them
and calls :func:`build_item` for one item at a time. Recorded texts are parsed again with the
protocols' own parsers (:func:`jurybox.parsing.parse_listwise`, :func:`parse_verdict`), so a
view shows what the current parser reads; a call that failed stays a failure (its kind and
message), never a score.

An item's flags (:class:`~.flags.ItemFlags`: flipped, fixed/regressed against the run's
baseline, failed, disagreeing) come from its items.jsonl records (:mod:`.flags`), the same
computation that counts them over the whole run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ParseError
from ..limits import MAX_ANSWER_CHARS
from ..parsing import parse_listwise, parse_verdict
from ..parsing.budget import answer_budget
from ..protocols import RunView, Weights, consensus, credit, labels_for, run_view, to_original
from ..protocols import winners as consensus_winners
from ..protocols.pairwise import orders_disagree
from .flags import FLAG_NAMES, Comparison, ItemFlags, item_flags, marks_of

__all__ = ["Attempt", "CallView", "FLAG_NAMES", "ItemFlags", "ItemView", "ProtocolView",
           "build_item", "plan_index"]

Task = Literal["listwise", "pairwise"]


@dataclass(frozen=True)
class Attempt:
    """One calls.jsonl record of a judgment: the first ask (``reask`` 0) or the re-ask (1).

    Attributes:
        messages: ``(role, content)`` pairs: exactly what the judge was shown (a re-ask
            carries the first answer and the follow-up).
        text: the raw judge text ('' after an API error).
        error: the API error after the last retry; parse_error: why the text was unusable.
        outcome: ``ok``, ``api``, ``parse``, ``refusal``; None when another attempt followed.
    """

    reask: int
    messages: tuple[tuple[str, str], ...]
    text: str
    error: str | None
    parse_error: str | None
    cached: bool
    outcome: str | None


@dataclass(frozen=True)
class CallView:
    """One judgment of an item (shared by every protocol that asked for it).

    Attributes:
        call_id: ``perm0``.. (listwise), ``AB``, ``BA-s1``, ``keyed-AB`` (pairwise).
        protocols: the protocols that asked for it (``direct`` and ``pcf`` share ``perm0``).
        order: candidate (response) indices in shown order; labels: the shown labels.
        attempts: its records, in order (the last one ends it).
        failure: ``api``, ``parse``, ``refusal`` or None; failure_message: why.
        run: listwise: the parsed judgment by candidate index (scores 0-100, 1-based ranks).
        rationale: listwise: the judge's rationale.
        shown_verdict: pairwise: ``A`` (the first shown), ``B`` or ``tie``; verdict: the same
            in terms of the original responses.
    """

    call_id: str
    protocols: tuple[str, ...]
    order: tuple[int, ...]
    labels: tuple[str, ...]
    attempts: tuple[Attempt, ...]
    failure: str | None = None
    failure_message: str | None = None
    run: RunView | None = None
    rationale: str = ""
    shown_verdict: str | None = None
    verdict: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def text(self) -> str:
        """The raw text of the last attempt."""
        return self.attempts[-1].text if self.attempts else ""

    @property
    def messages(self) -> tuple[tuple[str, str], ...]:
        return self.attempts[-1].messages if self.attempts else ()

    @property
    def top(self) -> int | None:
        """Listwise: the candidate ranked first."""
        return self.run.top if self.run is not None else None

    @property
    def ranking(self) -> tuple[int, ...]:
        """Listwise: candidate indices, best first (empty when failed)."""
        if self.run is None:
            return ()
        return tuple(sorted(range(len(self.run.ranks)), key=self.run.ranks.__getitem__))


@dataclass(frozen=True)
class ProtocolView:
    """One protocol's decision on the item (its latest items.jsonl line) and its calls.

    Attributes:
        record: the items.jsonl line as written.
        calls: its calls in plan order (a call never asked, say after an interruption or an
            adaptive stop, is absent).
    """

    protocol: str
    record: dict[str, Any]
    calls: tuple[CallView, ...]

    @property
    def failed(self) -> bool:
        r = self.record
        return bool(r["failed"]) if "failed" in r else r.get("credit") is None

    @property
    def credit(self) -> float | None:
        c = self.record.get("credit")
        return float(c) if isinstance(c, (int, float)) else None

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(self.record.get("winners") or ())

    @property
    def verdict(self) -> str | None:
        return self.record.get("verdict")

    @property
    def top_picks(self) -> tuple[int, ...]:
        """Listwise: the top pick of each successful call, in plan order."""
        return tuple(c.top for c in self.calls if c.top is not None)

    @property
    def flipped(self) -> bool:
        return len(set(self.top_picks)) > 1

    @property
    def disagreement(self) -> float | None:
        """Listwise: share of successful calls whose top pick is not a winner (None: no
        decision or no successful call)."""
        picks, won = self.top_picks, set(self.winners)
        if not picks or not won:
            return None
        return sum(p not in won for p in picks) / len(picks)

    @property
    def disagreeing(self) -> bool:
        """Pairwise: some order and its reverse (same sample) gave different verdicts."""
        calls = [c for c in self.calls if len(c.order) == 2]
        return orders_disagree([c.call_id for c in calls], [c.order[0] for c in calls],
                               [c.verdict for c in calls])  # type: ignore[misc]


@dataclass(frozen=True)
class ItemView:
    """Everything recorded about one item.

    Attributes:
        task: ``listwise`` or ``pairwise``.
        question: the question (prompt) text; candidates: candidate texts by index
            (pairwise: response A, response B).
        text_source: ``dataset`` (the run's dataset file, same sha256), ``prompt`` (read back
            from a recorded prompt: the escaped text the judge saw) or ``none``.
        gold: listwise gold candidate indices (empty: unlabelled); label: pairwise
            ``A>B`` / ``B>A`` (None: unlabelled).
        direct_credit: listwise: the direct judgment's credit: the ``direct`` protocol's
            decision, else PCF's first call (permutation 0, the base order) decided alone.
        flags: see :mod:`.flags`.
    """

    item_id: str
    task: Task
    question: str
    candidates: tuple[str, ...]
    text_source: str
    gold: tuple[int, ...]
    label: str | None
    protocols: tuple[ProtocolView, ...]
    direct_credit: float | None = None
    flags: ItemFlags = field(default_factory=ItemFlags)

    def protocol(self, name: str) -> ProtocolView | None:
        return next((p for p in self.protocols if p.protocol == name), None)

    @property
    def calls(self) -> tuple[CallView, ...]:
        """Every distinct call of the item, in the order the protocols list them."""
        seen: dict[str, CallView] = {}
        for p in self.protocols:
            for c in p.calls:
                seen.setdefault(c.call_id, c)
        return tuple(seen.values())


def plan_index(call_id: str) -> tuple[int, str]:
    """Sort key of a call id in plan order (``perm2`` before ``perm10``)."""
    if call_id.startswith("perm") and call_id[4:].isdigit():
        return int(call_id[4:]), ""
    return 0, call_id


def _attempt(r: dict[str, Any]) -> Attempt:
    # a calls.jsonl line edited outside jurybox shows what it holds, never a traceback
    raw = r.get("messages")
    messages = tuple((str(m[0]), str(m[1])) for m in (raw if isinstance(raw, list) else ())
                     if isinstance(m, (list, tuple)) and len(m) == 2)
    meta: dict[str, Any] = r["meta"] if isinstance(r.get("meta"), dict) else {}
    reask = meta.get("reask")
    return Attempt(reask if isinstance(reask, int) and not isinstance(reask, bool) else 0,
                   messages,
                   str(r.get("text") or ""), r.get("error"), r.get("parse_error"),
                   bool(r.get("cached")), r.get("outcome"))


def _call_view(call_id: str, protocols: tuple[str, ...], records: Sequence[dict[str, Any]],
               task: Task) -> CallView:
    """A call from its records (the last ends it), its final text parsed again."""
    attempts = tuple(_attempt(r) for r in records)
    order = tuple(int(i) for i in (records[-1].get("meta") or {}).get("order") or ())
    labels = labels_for(len(order)) if len(order) >= 2 else ()
    base = CallView(call_id, protocols, order, labels, attempts)
    last = attempts[-1]
    if last.outcome is None:
        return _failed(base, "api", "no answer recorded (the run stopped before it ended)")
    if last.outcome != "ok":
        return _failed(base, last.outcome,
                       last.error or last.parse_error or f"{last.outcome} failure")
    try:  # the answer was read when recorded, within the run's budget: any budget here
        with answer_budget(MAX_ANSWER_CHARS):
            if task == "listwise":
                judgment = parse_listwise(last.text, labels=labels)
                return _replace(base, run=run_view(judgment, order),
                                rationale=judgment.rationale)
            shown = parse_verdict(last.text).verdict
        return _replace(base, shown_verdict=shown, verdict=to_original(shown, order))
    except ParseError as exc:  # parsed when recorded, not by the current parser
        return _failed(base, exc.kind if exc.kind == "refusal" else "parse",
                       f"the current parser cannot read the recorded answer: {exc}")


def _replace(call: CallView, **changes: Any) -> CallView:
    return CallView(**{**call.__dict__, **changes})


def _failed(call: CallView, kind: str, message: str) -> CallView:
    return _replace(call, failure=kind, failure_message=message)


def _jobs(call_records: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``protocol/call_id`` -> the records of its latest finished judgment (or of its last
    one when none finished), from an item's calls.jsonl records in file order."""
    current: dict[str, list[dict[str, Any]]] = {}
    finished: dict[str, list[dict[str, Any]]] = {}
    for r in call_records:
        for asker in (r.get("meta") or {}).get("calls") or ():
            job = current.get(asker)
            if job is None or job[-1].get("outcome") is not None:
                job = current[asker] = []
            job.append(r)
            if r.get("outcome") is not None:
                finished[asker] = job
    return {a: finished.get(a, job) for a, job in current.items()}


def build_item(item_id: str, records: Sequence[dict[str, Any]],
               call_records: Sequence[dict[str, Any]], *, task: Task,
               texts: tuple[str, tuple[str, ...]] | None,
               pcf: tuple[Weights, float] | None = None, read_prompt: bool = True,
               comparison: Comparison | None = None) -> ItemView:
    """The view of one item.

    Args:
        records: its items.jsonl lines in file order (a later line of a protocol wins).
        call_records: its calls.jsonl lines in file order.
        texts: (question, candidate texts) from the dataset, or None to read them back from
            a recorded prompt (``read_prompt``; else the texts are left empty).
        pcf: PCF's weights and tolerance, to decide the direct judgment from PCF's first call
            when the run has no ``direct`` protocol.
        comparison: the protocols the run compares with its baseline (the ``fixed`` and
            ``regressed`` flags); None: none.
    """
    latest = {str(r["protocol"]): r for r in records}
    jobs = _jobs(call_records)
    askers: dict[tuple[str, int], list[str]] = {}  # a shared call, by its first record
    for asker, job in jobs.items():
        askers.setdefault((asker.split("/", 1)[1], id(job[-1])), []).append(asker.split("/")[0])
    views: dict[tuple[str, int], CallView] = {}
    protocols = []
    for name, record in latest.items():
        mine = [(a.split("/", 1)[1], job) for a, job in jobs.items() if a.split("/")[0] == name]
        order = list(record.get("call_ids") or ())
        mine.sort(key=lambda cj: (order.index(cj[0]) if cj[0] in order else len(order),
                                  plan_index(cj[0])))
        calls = []
        for call_id, job in mine:
            key = (call_id, id(job[-1]))
            if key not in views:
                views[key] = _call_view(call_id, tuple(askers[key]), job, task)
            calls.append(views[key])
        protocols.append(ProtocolView(name, record, tuple(calls)))
    first = records[-1] if records else {}
    gold = tuple(int(g) for g in first.get("gold") or ()) if task == "listwise" else ()
    label = first.get("label") if task == "pairwise" else None
    question, candidates, source = (_texts(texts, protocols, task)
                                    if texts is not None or read_prompt else ("", (), "none"))
    item = ItemView(item_id, task, question, candidates, source, gold, label or None,
                    tuple(protocols))
    flags = item_flags({name: marks_of(r, task) for name, r in latest.items()}, comparison)
    return ItemView(**{**item.__dict__, "direct_credit": _direct_credit(item, pcf),
                       "flags": flags})


def _texts(texts: tuple[str, tuple[str, ...]] | None, protocols: Sequence[ProtocolView],
           task: Task) -> tuple[str, tuple[str, ...], str]:
    if texts is not None:
        return texts[0], texts[1], "dataset"
    from .prompt_texts import texts_from_prompt

    for p in protocols:
        for c in p.calls:
            found = texts_from_prompt(c.attempts[0].messages if c.attempts else (), c.order,
                                      task)
            if found is not None:
                return found[0], found[1], "prompt"
    return "", (), "none"


def _direct_credit(item: ItemView, pcf: tuple[Weights, float] | None) -> float | None:
    if item.task != "listwise" or not item.gold:
        return None
    direct = item.protocol("direct")
    if direct is not None:
        return direct.credit
    p = item.protocol("pcf")
    first = p.calls[0] if p is not None and p.calls else None
    if first is None or first.call_id != "perm0" or first.run is None or pcf is None:
        return None
    weights, tolerance = pcf
    won = consensus_winners(consensus([first.run], weights=weights).combined,
                            tolerance=tolerance)
    return credit(won, item.gold)
