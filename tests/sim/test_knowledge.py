"""What the simulated judge knows (the items and their gold) is part of its cache identity:
the same file judged again with another gold is another judge, never served the first one's
answers (it is told the answers: a cached answer made with gold 0 says candidate 0 is best)."""

from __future__ import annotations

import asyncio
import json

from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.datasets import ListwiseItem
from jurybox.providers import OpenAICompatibleProvider
from jurybox.rundir import read_jsonl
from jurybox.sim import SimJudge, SimServer

runner = CliRunner()


def _items(gold: int) -> list[ListwiseItem]:
    return [ListwiseItem(f"q{i}", f"Question {i}?", (f"a{i}", f"b{i}", f"c{i}"),
                         frozenset({gold})) for i in range(3)]


def test_knowledge_follows_the_gold_not_the_order_items_were_read_in():
    a, b = _items(0), _items(1)
    assert SimJudge(a).knowledge() == SimJudge(list(reversed(a))).knowledge()
    assert SimJudge(a).knowledge() != SimJudge(b).knowledge()
    unlabelled = [ListwiseItem(i.item_id, i.prompt, i.candidates, frozenset()) for i in a]
    assert SimJudge(unlabelled).knowledge() not in (SimJudge(a).knowledge(),
                                                     SimJudge(b).knowledge())
    # the embedded judge's provider and serve-sim reached by URL both carry it
    with SimServer(SimJudge(a)) as sa, SimServer(SimJudge(b)) as sb:
        assert sa.provider().cache_identity()["knows"] == SimJudge(a).knowledge()
        identities = []
        for server in (sa, sb):
            remote = OpenAICompatibleProvider("vllm", "judge", server.base_url)

            async def check(p=remote) -> None:
                try:
                    await p.check()
                finally:
                    await p.aclose()
            asyncio.run(check())
            assert remote.simulated
            identities.append(remote.cache_identity())
        assert identities[0]["sim_knows"] == SimJudge(a).knowledge()
        assert identities[0]["sim_knows"] != identities[1]["sim_knows"]


def test_the_same_file_with_another_gold_is_not_served_from_the_cache(tmp_path):
    path, cache = tmp_path / "mine.jsonl", tmp_path / "cache.sqlite"
    runs = []
    for gold in (0, 1, 1):
        path.write_text("".join(json.dumps({"id": i.item_id, "prompt": i.prompt, "candidates":
                                            list(i.candidates), "gold": gold}) + "\n"
                                for i in _items(gold)))
        out = tmp_path / f"run{len(runs)}"
        result = runner.invoke(app, ["judge", str(path), "--model", "sim", "--k", "2",
                                     "--cache", str(cache), "--out", str(out)])
        assert result.exit_code == 0, result.output
        runs.append(read_jsonl(out / "calls.jsonl"))
    first, second, third = ({c["key"] for c in calls} for calls in runs)
    assert first and not first & second  # another gold: other keys, no cache hit
    assert not any(c["cached"] for c in runs[1])
    assert third == second and all(c["cached"] for c in runs[2])  # the same gold: free
