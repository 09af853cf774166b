"""Real-server test: a jury of the local llama.cpp judge (SmolLM2-135M-Instruct) and the
simulated judge. Marked ``real`` (``pytest -m real``; needs the ``[local]`` extra).

A 135M judge is weak and biased; asserted is what must hold for any jury: each judge's calls
are its own (the local judge's recorded with their raw text), the jury's decision on every
item is the weighted vote of the judges' own decisions (a failed local call no vote), and a
rerun is served from the judges' records (no model call)."""



from jurybox.compare import BenchConfig
from jurybox.jury import jury_of, jury_pairwise, run_jury
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy

from . import REAL_LOCAL

pytestmark = REAL_LOCAL


def test_a_jury_of_the_local_and_the_simulated_judge(tmp_path):
    config = BenchConfig(dataset="judgebench-gpt", protocols=("both-orders",), limit=2,
                         verdict_format="json", max_tokens=300)
    jury = jury_of([{"name": "smollm", "model": "local"},
                    {"name": "sim", "model": "sim", "weight": 2}])
    options = RunOptions(structured="json-schema", cache_path=tmp_path / "cache.sqlite",
                         retry=RetryPolicy(attempts=2, base_s=0), timeout_s=300)
    result = run_jury(config, jury, tmp_path / "run", options=options)
    local = read_jsonl(tmp_path / "run" / "judges" / "smollm" / "calls.jsonl")
    assert local and all(c["error"] is None and (c["text"] or c["parse_error"]) for c in local)
    assert result.judges["smollm"].judge.startswith("local llama.cpp, SmolLM2-135M")
    assert not result.judges["smollm"].simulated and result.judges["sim"].simulated
    for r in result.records:
        votes = [r["judges"][n]["verdict"] if not r["judges"][n]["failed"] else None
                 for n in ("smollm", "sim")]
        assert r["verdict"] == jury_pairwise(votes, [1, 2]).decision
    summary = result.summary.protocols["both-orders"]
    assert summary.judges["sim"].accuracy.n == 2  # the simulated judge decides both items
    again = run_jury(config, jury, tmp_path / "run", options=options)
    assert again.model_calls == 0 and again.records == result.records
