"""The run engine: options, manifest, staged protocols, resume, the bounded window."""

import asyncio
import json
from dataclasses import asdict, dataclass

import pytest

from jurybox.compare import BenchConfig, run_bench
from jurybox.errors import ConfigError
from jurybox.protocols import PlannedCall, build_protocol
from jurybox.providers import ChatRequest, ChatResponse, Message
from jurybox.rundir import read_jsonl
from jurybox.run import Engine, RunHooks, RunJob, RunOptions
from jurybox.runner import RetryPolicy

FAST = RetryPolicy(attempts=2, base_s=0)


@pytest.mark.parametrize("kwargs, message", [
    ({"concurrency": 0}, "concurrency must be between 1 and 1,024, got 0"),
    # issue 17: 10**9 grew to 2.7 GB before the first call and never finished
    ({"concurrency": 10**9}, "concurrency must be between 1 and 1,024, got 1,000,000,000"),
    ({"timeout_s": 0}, "timeout_s must be a finite number of seconds > 0, at most 3600, got 0"),
    ({"timeout_s": 3600.5}, "timeout_s must be a finite number of seconds > 0, at most 3600, "
                            "got 3600.5"),
    ({"transport": "curl"}, "transport must be one of aiohttp, sdk, got 'curl'"),
    ({"abort_after": 0}, "abort_after must be >= 1 or None, got 0"),
    ({"window": 0}, "window must be between 1 and 1,024, got 0"),
    ({"window": 1025}, "window must be between 1 and 1,024, got 1,025"),
    ({"structured": "xml"}, "structured must be one of auto, json-schema, json-object, off, "
                            "got 'xml'"),
])
def test_run_options_name_the_bad_parameter(kwargs, message):
    with pytest.raises(ConfigError) as err:
        RunOptions(**kwargs)
    assert str(err.value) == message


def test_the_largest_allowed_run_options_are_accepted():
    options = RunOptions(concurrency=1024, timeout_s=3600, window=1024,
                         retry=RetryPolicy(attempts=100))
    assert options.items_in_flight == 1024


@pytest.mark.parametrize("kwargs, message", [
    ({"attempts": 0}, "attempts must be between 1 and 100, got 0"),
    # 10**9 attempts against a dead endpoint never ended (and 2**attempt overflows a float)
    ({"attempts": 10**9}, "attempts must be between 1 and 100, got 1,000,000,000"),
    ({"base_s": float("inf")}, "base_s must be a finite number of seconds >= 0, got inf"),
    ({"max_s": float("nan")}, "max_s must be a finite number of seconds >= 0, got nan"),
])
def test_retry_policy_bounds(kwargs, message):
    with pytest.raises(ConfigError) as err:  # jurybox's own error, as RunOptions raises
        RetryPolicy(**kwargs)
    assert str(err.value) == message


def test_run_options_window_defaults_to_concurrency():
    assert RunOptions(concurrency=7).items_in_flight == 7
    assert RunOptions(concurrency=7, window=3).items_in_flight == 3


def test_unknown_protocol_arguments_are_an_error():
    with pytest.raises(ConfigError, match=r"protocol 'direct' takes no argument 'k'; it takes "
                                          r"seed, weights, tolerance"):
        build_protocol("direct", k=3)
    with pytest.raises(ConfigError, match="unknown protocol 'pfc'"):
        build_protocol("pfc")
    with pytest.raises(ConfigError, match="protocol 'pcf': k must be >= 1, got 0"):
        build_protocol("pcf", k=0)
    with pytest.raises(ConfigError, match="protocol 'rubric': .*missing .*'context'"):
        build_protocol("rubric")


def test_a_negative_seed_is_refused_before_any_call(tmp_path):
    with pytest.raises(ConfigError, match="--seed must be 0 to 4,294,967,295, got -1"):
        run_bench(BenchConfig(dataset="rewardbench2-sample", seed=-1), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_manifest_records_every_protocols_parameters_and_the_options(tmp_path):
    config = BenchConfig(dataset="rewardbench2-sample", k=3, tolerance=1.5)
    run_bench(config, tmp_path / "run", options=RunOptions(concurrency=3, retry=FAST))
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    weights = {"mean": 0.5, "borda": 0.25, "vote": 0.2, "uncertainty": 0.05}
    assert manifest["protocols"] == [
        {"name": "direct", "params": {"seed": 0, "weights": weights, "tolerance": 1.5,
                                      "temperature": 0.0, "max_tokens": 1024, "prompt_version": 2}},
        {"name": "pcf", "params": {"k": 3, "seed": 0, "weights": weights, "tolerance": 1.5,
                                   "temperature": 0.0, "max_tokens": 1024, "adaptive": "off",
                                   "prompt_version": 2}}]
    assert manifest["options"] == {"concurrency": 3, "attempts": 2, "timeout_s": 60.0,
                                   "transport": "aiohttp", "cache": None, "abort_after": 25,
                                   "window": 3, "structured": "auto",
                                   "max_answer_chars": 1_000_000}
    assert manifest["kind"] == "bench" and manifest["dataset"]["n_items"] == 8


def test_a_protocol_named_twice_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="--protocols names 'direct' more than once"):
        run_bench(BenchConfig(dataset="rewardbench2-sample", protocols=("direct", "pcf",
                                                                         "direct")),
                  tmp_path / "run")


def test_verdict_format_on_a_listwise_dataset_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="--verdict-format is for pairwise protocols"):
        run_bench(BenchConfig(dataset="rewardbench2-sample", verdict_format="json"),
                  tmp_path / "run")


# ---------------------------------------------------------------- a staged protocol
class EchoProvider:
    """Answers every request with its last user message upper-cased; counts calls."""

    name, model, simulated = "echo", "m", True

    def __init__(self):
        self.calls = 0

    def cache_identity(self):
        return {"provider": "echo"}

    async def complete(self, request):
        self.calls += 1
        await asyncio.sleep(0)
        return ChatResponse(text=request.messages[-1].content.upper())

    async def check(self):
        pass

    async def aclose(self):
        pass


@dataclass(frozen=True)
class Word:
    key: str
    text: str


@dataclass(frozen=True)
class Verdict:
    unit: str
    protocol: str
    answers: tuple[str, ...]
    failures: tuple[str, ...] = ()

    def to_record(self):
        return asdict(self)


def _call(text):
    return PlannedCall(text, (), (), ChatRequest(messages=(Message(role="user", content=text),)),
                       parse=str)


class TwoStage:
    """Asks a second question only when the first answer is long: gating's shape."""

    name, task = "two-stage", "listwise"

    def params(self):
        return {"threshold": 4}

    def answer_schema(self, item):
        return {"type": "string"}

    async def judge(self, item, calls):
        first = await calls.ask(_call(item.text))
        answers = [first.value]
        if len(first.value) > 4:
            answers.append((await calls.ask(_call(item.text + "!"))).value)
        return Verdict(item.key, self.name, tuple(answers))


def _job(tmp_path, words, summaries):
    def summarize(records, info):
        records = list(records)
        summaries.append((len(records), info.n_units))

        class S:
            def to_json(self):
                return {"records": len(records)}
        return S()

    return RunJob(out=tmp_path / "run", model="echo/m", config={"what": "words"}, manifest={},
                  units=lambda: iter(words), n_units=len(words), unit_key=lambda w: w.key,
                  protocols=[TwoStage()], summarize=summarize)


def test_a_staged_protocol_asks_its_second_stage_only_when_needed_and_resumes(tmp_path):
    words = [Word("a", "hi"), Word("b", "hello"), Word("c", "yo"), Word("d", "greetings")]
    provider, summaries = EchoProvider(), []
    report = Engine(provider, RunOptions(retry=FAST)).run(_job(tmp_path, words, summaries))
    assert provider.calls == 2 + 2 * 2  # two short words once, two long words twice
    records = {r["unit"]: r["answers"] for r in read_jsonl(tmp_path / "run" / "items.jsonl")}
    assert records == {"a": ["HI"], "b": ["HELLO", "HELLO!"], "c": ["YO"],
                       "d": ["GREETINGS", "GREETINGS!"]}
    assert report.judged_now == 4 and summaries == [(4, 4)]
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["records"] == 4
    again = Engine(EchoProvider(), RunOptions()).run(_job(tmp_path, words, summaries))
    assert again.judged_now == 0 and again.totals.model_calls == 0
    more = Engine(EchoProvider(), RunOptions()).run(
        _job(tmp_path, [*words, Word("e", "morning")], summaries))
    assert more.judged_now == 1 and more.totals.model_calls == 2
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["protocols"] == [{"name": "two-stage", "params": {"threshold": 4}}]
    assert [s["status"] for s in manifest["sessions"]] == ["complete"] * 3


def test_a_changed_config_is_refused_before_any_call(tmp_path):
    words = [Word("a", "hi")]
    Engine(EchoProvider(), RunOptions()).run(_job(tmp_path, words, []))
    job = _job(tmp_path, words, [])
    changed = RunJob(**{**job.__dict__, "config": {"what": "other words"}})
    provider = EchoProvider()
    with pytest.raises(ConfigError, match=r"differs in \['what'\]"):
        Engine(provider, RunOptions()).run(changed)
    assert provider.calls == 0


def test_units_flow_through_a_bounded_window(tmp_path):
    pulled, finished, most = [0], [0], [0]

    def units():
        for i in range(40):
            pulled[0] += 1
            most[0] = max(most[0], pulled[0] - finished[0])
            yield Word(f"w{i}", "x" * (i % 7))

    def on_item(_unit):
        finished[0] += 1

    job = _job(tmp_path, [], [])
    job = RunJob(**{**job.__dict__, "units": units, "n_units": 40})
    report = Engine(EchoProvider(), RunOptions(concurrency=8, window=3),
                    hooks=RunHooks(on_item=on_item)).run(job)
    assert report.judged_now == 40 and pulled[0] == 40
    assert most[0] <= 3  # never more units read than the window holds
