"""The rank verb, named for its product (``jurybox.rank`` is the function): read systems'
outputs (judging them in pairs) or recorded judgments, and rank
the systems with :mod:`jurybox.ranking`'s statistics; write the leaderboard."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["Leaderboard", "RankPair", "RankResult", "SystemOutputs", "SystemRow",
           "comparisons_of_run", "leaderboard", "plan_pairs", "rank_comparisons",
           "read_outputs", "recorded_comparisons", "source_kind", "write_ranking"]

if _typing.TYPE_CHECKING:
    from .board import Leaderboard, SystemRow, leaderboard
    from .live import comparisons_of_run
    from .outputs import SystemOutputs, read_outputs
    from .pairing import RankPair, plan_pairs
    from .recorded import recorded_comparisons
    from .run import RankResult, rank_comparisons, source_kind, write_ranking

__getattr__, __dir__ = _lazy_exports(__name__)
