"""The real local judge (llama.cpp, SmolLM2-135M-Instruct) ranks three systems' outputs, each
pair in both orders: the ranking's files are written from real verdicts, every pair either
decided or counted as failed (never a tie), and the order effects are measured (a 135M judge is
strongly position-biased: not asserted, reported)."""

import json


from jurybox.leaderboard.run import rank
from jurybox.leaderboard.simulated import truthfulqa_systems
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy

from . import REAL_LOCAL

pytestmark = REAL_LOCAL


def test_the_local_judge_ranks_three_systems_and_a_rerun_is_free(tmp_path):
    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in truthfulqa_systems(4)))
    options = RunOptions(structured="json-schema", cache_path=tmp_path / "cache.sqlite",
                         retry=RetryPolicy(attempts=2, base_s=0), timeout_s=300)
    # a JSON verdict under the server's JSON schema: a 135M judge rarely ends its text with
    # the verdict token (measured: 11 of 12 calls unparsed), the schema makes it answer one
    first = rank(path, baseline="sometimes", model="local", out=tmp_path / "rank",
                 options=options, rounds=100, max_tokens=300, verdict_format="json")
    s = first.summary
    # 4 prompts x 2 systems against the baseline; identical answers (2 with truthful, 0 with
    # misled) tie without a call; every judged pair decided or counted as failed
    assert s["n_comparisons"] + s["n_failed"] == 8
    assert not s["simulated"] and s["model"] == "local"
    assert {r["name"] for r in s["systems"]} == {"truthful", "sometimes", "misled"}
    calls = [json.loads(line) for line in
             (tmp_path / "rank" / "judge" / "calls.jsonl").read_text().splitlines()]
    assert len(calls) >= 2 * 6  # 6 judged pairs, both orders
    assert all(c["text"] or c["parse_error"] or c["error"] for c in calls)
    assert s["order"][0]["n_orders"] >= 1
    assert (tmp_path / "rank" / "report.html").exists()
    # the same call again: served from the cache and the run directory, no model call
    again = rank(path, baseline="sometimes", model="local", out=tmp_path / "rank",
                 options=options, rounds=100, max_tokens=300, verdict_format="json")
    assert again.summary["systems"] == s["systems"]
    manifest = json.loads((tmp_path / "rank" / "judge" / "run.json").read_text())
    assert manifest["sessions"][-1]["totals"]["model_calls"] == 0
    print("local judge ranking:", json.dumps(s["systems"]), "order:", s["order"][0])
