"""What a run says about the simulated judge's answers that are noise: prompts whose
candidates it did not know (``jurybox serve-sim`` started with another dataset), read from its
counters before and after a session, and the run's unlabelled items (it is told the gold
answers; without gold, its verdicts are position-biased noise)."""

from __future__ import annotations

from typing import Any

from ..errors import JuryboxError
from ..providers import Provider
from ..rundir import RunDir, read_manifest

__all__ = ["run_warnings", "sim_stats", "unknown_since", "unlabelled_warning"]


async def sim_stats(provider: Provider) -> dict[str, Any] | None:
    """The simulated judge's counters, when the provider is one that can ask for them."""
    ask = getattr(provider, "sim_stats", None)
    return await ask() if ask is not None and provider.simulated else None


def unknown_since(before: dict[str, Any] | None, after: dict[str, Any] | None
                  ) -> dict[str, int] | None:
    """Prompts the simulated judge answered between two readings of its counters, and how
    many of them showed candidates it does not know; None when there were none (or no
    counters: not the simulated judge)."""
    if before is None or after is None:
        return None
    try:
        unknown = int(after["unknown_prompts"]) - int(before["unknown_prompts"])
        prompts = int(after["prompts"]) - int(before["prompts"])
    except (KeyError, TypeError, ValueError):
        return None
    return {"prompts": prompts, "unknown_prompts": unknown} if unknown > 0 else None


def run_warnings(rundir: RunDir) -> tuple[str, ...]:
    """Warnings about the whole run (every session in run.json): a simulated judge that was
    asked about candidates it does not know (``jurybox serve-sim`` started with another
    dataset) gave judgments that are noise around a middling quality."""
    try:
        sessions = (read_manifest(rundir.manifest_path) or {}).get("sessions") or []
    except JuryboxError:
        return ()
    counts = [s["sim_unknown"] for s in sessions
              if isinstance(s, dict) and isinstance(s.get("sim_unknown"), dict)]
    unknown = sum(int(c.get("unknown_prompts", 0)) for c in counts)
    if not unknown:
        return ()
    prompts = sum(int(c.get("prompts", 0)) for c in counts)
    return (f"the simulated judge did not know the candidates of {unknown} of the {prompts} "
            f"prompts it was sent (it knows the items of the --dataset it was started with: "
            f"start jurybox serve-sim with this run's dataset); their judgments are noise "
            f"around a middling quality, not a measurement",)


def unlabelled_warning(n_unlabelled: int, n_items: int) -> str:
    """The sentence a run (or ``jurybox serve-sim``) says when the simulated judge judges
    ``n_unlabelled`` (>= 1) items without gold of ``n_items``: it is told the gold answers,
    so it scores the candidates of an unlabelled item alike, and the order they are shown in
    and per-call noise pick the winner.

    >>> print(unlabelled_warning(1, 2).split(":")[0])
    1 of the 2 items has no gold
    >>> print(unlabelled_warning(3, 3).split(":")[0])
    the 3 items have no gold
    """
    if n_items == 1:
        which = "the item has"
    elif n_unlabelled == n_items:
        which = f"the {n_items} items have"
    else:
        which = f"{n_unlabelled} of the {n_items} items {'has' if n_unlabelled == 1 else 'have'}"
    return (f"{which} no gold: the simulated judge's verdicts on unlabelled items are "
            f"position-biased noise (it is told the gold answers and scores candidates without "
            f"one alike), for trying the tool, not a measurement")
