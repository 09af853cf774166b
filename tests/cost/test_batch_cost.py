"""The batch rate: bundled per provider, given on the command line, counted apart in the
totals, priced apart in a run's cost and shown beside the online USD in a dry run."""

import asyncio
import json
import math

import pytest
from typer.testing import CliRunner

from jurybox.cache import ResponseCache
from jurybox.cli import app
from jurybox.cost import Price, RunPlan, bundled_price, resolve_price, run_cost
from jurybox.errors import ConfigError
from jurybox.providers import ChatRequest, ChatResponse, Message, Usage
from jurybox.rundir import RunDir
from jurybox.runner import Job, RetryPolicy, Runner
from jurybox.runner.records import CallRecord, Totals

# $2.50 in / $10 out per million tokens, batch at half of it
PRICE = Price(2.5, 10.0, "t", 0.5, "b")


def test_the_batch_rate_is_the_share_of_the_online_price():
    # online: 1,000,000 x 2.50/M + 100,000 x 10/M = 2.50 + 1.00 = 3.50 USD; batch: half
    assert PRICE.usd(1_000_000, 100_000) == pytest.approx(3.50)
    assert PRICE.usd(1_000_000, 100_000, batch=True) == pytest.approx(1.75)
    # a share of 0.25: 0.25 x 3.50
    assert Price(2.5, 10.0, "t", 0.25, "b").usd(1_000_000, 100_000, batch=True) == \
        pytest.approx(0.875)
    with pytest.raises(ValueError, match="no batch rate"):
        Price(2.5, 10.0, "t").usd(1, 1, batch=True)


def test_bundled_batch_rates_are_per_provider_and_dated():
    for model in ("openai/gpt-4o", "anthropic/claude-sonnet-4-0"):
        price = bundled_price(model)
        assert price is not None and price.batch_share == 0.5
        assert price.batch_source == f"bundled {model.split('/')[0]} batch rate as of 2025-06"
    gpt4o = bundled_price("openai/gpt-4o")
    assert (gpt4o.input_per_m, gpt4o.output_per_m) == (2.5, 10.0)  # the table's list price
    # given online prices keep the provider's batch share
    given = resolve_price("openai/gpt-4o", 1.0, 2.0)
    assert (given.input_per_m, given.batch_share) == (1.0, 0.5)
    # no batch API: an OpenAI-compatible server, the simulated and the local judge
    assert resolve_price("vllm/m", 1.0, 2.0).batch_share is None
    assert resolve_price("sim", 1.0, 2.0).batch_share is None
    assert resolve_price("local", None, None) is None


def test_price_batch_sets_the_rate_and_is_checked():
    assert resolve_price("vllm/m", 1.0, 2.0, 0.25).batch_share == 0.25
    bundled = resolve_price("anthropic/claude-sonnet-4-0", None, None, 0.4)
    assert (bundled.input_per_m, bundled.batch_share) == (3.0, 0.4)
    assert bundled.batch_source == "given (--price-batch)"
    for bad in (1.5, -0.1, math.nan):
        with pytest.raises(ConfigError, match="--price-batch must be a share"):
            resolve_price("openai/gpt-4o", None, None, bad)


def _record(prompt, completion, *, batch=False, cached=False, usage=None):
    return CallRecord(key="k", meta={}, cached=cached, batch=batch, attempts=0 if cached else 1,
                      usage=usage or Usage(prompt_tokens=prompt, completion_tokens=completion),
                      outcome="ok")


#: one online call, two batch calls, a cache hit (not paid) and a batch call whose usage was
#: reported wrongly (counted as a call, its tokens left out)
MIXED = [_record(1000, 100), _record(1_000_000, 100_000, batch=True),
         _record(500, 50, batch=True), _record(700, 70, cached=True),
         _record(0, 0, batch=True, usage=Usage(invalid="not a count"))]


def test_totals_count_batch_calls_and_tokens_apart():
    totals = Totals()
    for r in MIXED:
        totals.add(r)
    # all paid tokens: 1000 + 1,000,000 + 500 prompt, 100 + 100,000 + 50 completion
    assert (totals.prompt_tokens, totals.completion_tokens) == (1_001_500, 100_150)
    # of them batch: 1,000,500 prompt, 100,050 completion over 3 batch calls
    assert (totals.batch_calls, totals.batch_prompt_tokens,
            totals.batch_completion_tokens) == (3, 1_000_500, 100_050)
    assert (totals.cache_hits, totals.invalid_usage) == (1, 1)
    # rebuilt from the calls.jsonl lines (a killed session), the same
    assert Totals.of_records([r.model_dump(mode="json") for r in MIXED]) == totals


def test_an_online_run_writes_what_it_wrote_before():
    online = Totals()
    online.add(_record(1000, 100))
    assert set(online.as_dict()) == {"jobs", "model_calls", "cache_hits", "retries", "reasks",
                                     "failures", "prompt_tokens", "completion_tokens",
                                     "cached_tokens"}
    line = _record(1000, 100).model_dump(mode="json")
    assert "batch" not in line  # calls.jsonl: only a batch call says so
    assert _record(1, 1, batch=True).model_dump(mode="json")["batch"] is True
    # a run without batch calls: the cost as before, no batch fields
    assert run_cost(PRICE, online.as_dict()) == {
        "usd": 0.0035, "prompt_tokens": 1000, "completion_tokens": 100,
        "usd_per_million": [2.5, 10.0], "price_source": "t"}


def test_a_run_mixing_batch_and_online_calls_over_sessions_is_priced_apart(tmp_path):
    # session 0 is killed after logging MIXED (its totals derived from calls.jsonl on the
    # next open); session 1 makes one more online call of 1,000 prompt, 100 completion
    first = RunDir(tmp_path / "run", {"k": 1})
    first.write_manifest({}, {"status": "running"})
    for r in MIXED:
        first.append_call(r.model_dump(mode="json"))
    first.close()
    second = RunDir(tmp_path / "run", {"k": 1})
    now = Totals()
    now.add(_record(1000, 100))
    cost = run_cost(PRICE, second.run_totals({"totals": now.as_dict()}))
    second.close()
    # online: 2,000 prompt, 200 completion: (2000 x 2.5 + 200 x 10) / 1e6 = 0.007
    # batch: 1,000,500 prompt, 100,050 completion: 0.5 x (2,501,250 + 1,000,500) / 1e6
    #        = 0.5 x 3.50175 = 1.750875
    assert cost["online_usd"] == pytest.approx(0.007)
    assert cost["batch_usd"] == pytest.approx(1.750875)
    assert cost["usd"] == pytest.approx(1.757875)  # the total, as report and index show
    assert (cost["batch_calls"], cost["batch_prompt_tokens"],
            cost["batch_completion_tokens"]) == (3, 1_000_500, 100_050)
    assert (cost["prompt_tokens"], cost["batch_share"]) == (1_002_500, 0.5)


def test_batch_tokens_without_a_batch_rate_cost_the_online_price_and_say_so():
    totals = {"prompt_tokens": 1_000_000, "completion_tokens": 100_000, "batch_calls": 1,
              "batch_prompt_tokens": 1_000_000, "batch_completion_tokens": 100_000}
    cost = run_cost(Price(2.5, 10.0, "t"), totals)
    assert (cost["usd"], cost["batch_usd"], cost["online_usd"]) == (3.5, 3.5, 0.0)
    assert cost["batch_share"] is None and "online rate" in cost["batch_price_source"]


class BatchProvider:
    """Answers every request with '7' and the given usage, through a 'batch' (no HTTP)."""

    name, model, simulated = "scripted", "m", False

    def cache_identity(self):
        return {"provider": self.name}

    async def complete(self, request):
        return ChatResponse(text="7", usage=Usage(prompt_tokens=10, completion_tokens=2),
                            batch=True)

    async def check(self):
        pass

    async def aclose(self):
        pass


def test_the_runner_marks_batch_answers_and_a_cache_hit_is_not_a_batch_call():
    cache = ResponseCache(":memory:")
    request = ChatRequest(messages=(Message(role="user", content="pick"),))
    records = []
    runner = Runner(BatchProvider(), cache=cache, on_call=records.append,
                    retry=RetryPolicy(attempts=1, base_s=0))

    async def main():
        return [await runner.run(Job(request, int)) for _ in range(2)]  # the second: a hit
    asyncio.run(main())
    assert [(r.cached, r.batch) for r in records] == [(False, True), (True, False)]
    assert (runner.totals.batch_calls, runner.totals.batch_prompt_tokens,
            runner.totals.batch_completion_tokens, runner.totals.prompt_tokens) == (1, 10, 2, 10)


runner = CliRunner()


def _usd_line(output):
    """The dry run's USD line (the terminal may fold it)."""
    flat = " ".join(output.split())
    return flat[flat.index("USD:"):]


def test_the_dry_run_prints_online_and_batch_usd():
    plan = RunPlan(units=1, calls_max=1, calls_min=1, input_tokens_max=1_000_000,
                   input_tokens_min=1_000_000, output_tokens_max=100_000,
                   shared_prefix_tokens=0, tokenizer="t", exact_tokens=True, price=PRICE)
    # least: 1,000,000 x 2.5 / 1e6 = 2.5 (no output); most: 2.5 + 100,000 x 10 / 1e6 = 3.5
    assert plan.usd_range() == pytest.approx((2.5, 3.5))
    assert plan.batch_usd_range() == pytest.approx((1.25, 1.75))
    args = ["bench", "truthfulqa", "--protocols", "pcf", "--k", "3", "--limit", "5",
            "--dry-run"]
    result = runner.invoke(app, [*args, "--model", "openai/gpt-4o"])
    assert result.exit_code == 0, result.output
    line = _usd_line(result.output)
    online = [float(x) for x in line.split("online ")[1].split(",")[0].split(" to ")]
    batch = [float(x) for x in line.split("batch ")[1].split(" (")[0].split(" to ")]
    assert batch == pytest.approx([x / 2 for x in online], abs=1e-4)  # 4 decimals printed
    assert "(50%)" in line and "batch: 50% of it, bundled openai batch rate as of 2025-06" \
        in line
    # no batch API: one online figure; --price-batch gives it one
    plain = _usd_line(runner.invoke(app, [*args, "--model", "vllm/m", "--price-in", "2.5",
                                          "--price-out", "10"]).output)
    assert "batch" not in plain and "online" not in plain
    given = _usd_line(runner.invoke(app, [*args, "--model", "vllm/m", "--price-in", "2.5",
                                          "--price-out", "10", "--price-batch", "0.25"]).output)
    assert "(25%)" in given and "given (--price-batch)" in given
    bad = runner.invoke(app, [*args, "--model", "vllm/m", "--price-batch", "2"])
    assert bad.exit_code == 2 and "--price-batch must be a share" in bad.output


def test_a_jury_prices_each_judge_at_its_own_batch_rate(tmp_path):
    from jurybox.cli._jury import command_price
    from jurybox.jury.panel import Juror
    from jurybox.jury.run import _options_for
    from jurybox.run import RunOptions

    options = RunOptions(price=command_price(1.0, 2.0))
    assert options.price.batch_share is None  # no provider yet
    assert _options_for(Juror(model="openai/gpt-4o"), options).price.batch_share == 0.5
    assert _options_for(Juror(model="vllm/m"), options).price.batch_share is None
    own = _options_for(Juror(model="vllm/m", price_batch=0.3), options).price
    assert (own.input_per_m, own.batch_share) == (1.0, 0.3)
    bundled = _options_for(Juror(model="anthropic/claude-sonnet-4-0"), RunOptions()).price
    assert (bundled.input_per_m, bundled.batch_share) == (3.0, 0.5)
    with pytest.raises(ConfigError, match="--price-batch goes with --price-in"):
        command_price(None, None, 0.5)
    jury = tmp_path / "jury.yaml"
    jury.write_text("judges:\n  - model: sim\n    price_batch: 1.5\n")
    result = runner.invoke(app, ["bench", "truthfulqa", "--jury", str(jury), "--dry-run"])
    assert result.exit_code == 2 and "price_batch" in result.output


def test_spent_line_says_the_batch_part(tmp_path):
    from jurybox.reports.notes import spent_note

    assert spent_note(1.757875, 1.750875) == (
        "spent: 1.7579 USD over the run's sessions (prompt and completion tokens at the given "
        "or bundled price): online 0.0070 USD, batch 1.7509 USD (batch calls at the batch "
        "rate)")
    assert json.dumps(spent_note(1.0)).count("batch") == 0


class HalfBatch:
    """The simulated judge, every other answer marked as come through a batch."""

    def __init__(self, provider):
        self._provider, self._n = provider, 0

    def __getattr__(self, name):
        return getattr(self._provider, name)

    async def complete(self, request):
        response = await self._provider.complete(request)
        self._n += 1
        return response.model_copy(update={"batch": self._n % 2 == 0})


def test_a_run_with_batch_answers_writes_its_cost_online_and_batch(tmp_path):
    from jurybox.compare import BenchConfig, prepare_bench
    from jurybox.compare.run import _job
    from jurybox.rundir import read_jsonl
    from jurybox.run import Engine, RunOptions
    from jurybox.sim import SimConfig, SimJudge, SimServer

    bench = prepare_bench(BenchConfig(dataset="rewardbench2-sample", k=2))
    with SimServer(SimJudge(bench.selection, SimConfig())) as server:
        report = Engine(HalfBatch(server.provider()), RunOptions(price=PRICE, cache_path=None)
                        ).run(_job(bench, tmp_path / "run", False))
    calls = read_jsonl(report.out / "calls.jsonl")
    batch = [c for c in calls if c.get("batch")]
    online = [c for c in calls if "batch" not in c]
    assert batch and online and len(batch) + len(online) == len(calls)

    def usd(rows, share):
        return share * sum(c["usage"]["prompt_tokens"] * 2.5 + c["usage"]["completion_tokens"]
                           * 10 for c in rows) / 1e6
    cost = json.loads((report.out / "summary.json").read_text())["cost"]
    assert cost["batch_usd"] > 0  # the simulated judge reports its tokens
    assert cost["batch_usd"] == pytest.approx(usd(batch, 0.5), abs=1e-6)
    assert cost["online_usd"] == pytest.approx(usd(online, 1.0), abs=1e-6)
    assert cost["usd"] == pytest.approx(usd(batch, 0.5) + usd(online, 1.0), abs=1e-6)
    assert report.batch_usd == cost["batch_usd"] and report.cost_usd == cost["usd"]
    totals = json.loads((report.out / "run.json").read_text())["totals"]
    assert totals["batch_calls"] == len(batch)
