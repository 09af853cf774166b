"""Real-server test: llama.cpp's token log-probabilities (--logprobs) on the local judge
(SmolLM2-135M-Instruct): returned for every answer token, their text the answer's, and each
A or B verdict given a token probability (jurybox.parsing.verdict_probability)."""

import math

from jurybox.compare import BenchConfig, run_bench
from jurybox.run import RunOptions
from jurybox.rundir import read_jsonl
from jurybox.runner import RetryPolicy

from . import REAL_LOCAL

pytestmark = REAL_LOCAL


def test_the_local_judge_returns_token_logprobs_and_verdicts_get_probabilities(tmp_path):
    config = BenchConfig(dataset="judgebench-gpt", model="local", protocols=("both-orders",),
                         limit=2, verdict_format="json", max_tokens=400, logprobs=3)
    options = RunOptions(structured="json-schema", cache_path=tmp_path / "cache.sqlite",
                         retry=RetryPolicy(attempts=2, base_s=0), timeout_s=300)
    result = run_bench(config, tmp_path / "run", options=options)
    calls = read_jsonl(result.out / "calls.jsonl")
    assert calls
    for c in calls:
        assert c["error"] is None, c["error"]
        tokens = c["logprobs"]
        assert "".join(t["token"] for t in tokens) == c["text"]
        # 3 alternatives, plus the token itself when the sampler chose one outside them
        # (llama-cpp-python 0.3.36 adds it: 12 of 60 tokens measured)
        assert all(t["logprob"] <= 0 and 3 <= len(t["top"]) <= 4 for t in tokens)
    decided = 0
    for r in read_jsonl(result.out / "items.jsonl"):
        for verdict, p in zip(r["call_verdicts"], r["call_probabilities"]):
            if verdict in ("A", "B"):  # JSON verdicts: the letter is always found
                assert p is not None and 0.0 <= p <= 1.0 and not math.isnan(p)
                decided += 1
    assert decided >= 1
