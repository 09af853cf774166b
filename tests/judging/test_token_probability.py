"""The token probability of pairwise verdicts (--logprobs): asked of the endpoint, kept in the
cache and calls.jsonl, recorded per call in items.jsonl in original terms, and calibrated as a
second confidence signal of selective judging (simulated judge on 127.0.0.1)."""

import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.judging.results import ItemJudgment, judgment_of
from jurybox.judging.selective import ORDER_SIGNAL, PROBABILITY_SIGNAL, selective_judgments
from jurybox.stats.selective import split_items

cli = CliRunner()


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _bench(out, cache, *extra):
    result = cli.invoke(app, ["bench", "judgebench", "--model", "sim", "--limit", "12",
                              "--protocols", "both-orders", "--cache", str(cache),
                              "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return _lines(out / "items.jsonl"), _lines(out / "calls.jsonl")


def test_probabilities_are_recorded_in_original_terms_cached_and_keyed_apart(tmp_path):
    cache = tmp_path / "cache.sqlite"
    items, calls = _bench(tmp_path / "a", cache, "--logprobs", "3")
    assert calls and all(c.get("logprobs") for c in calls)
    n = 0
    for r in items:
        for verdict, p in zip(r["call_verdicts"], r["call_probabilities"]):
            if verdict == "tie":
                assert p is None  # a tie has no deciding letter
            else:  # the simulated judge says the likelier letter: P(A) > 0.5 iff it says A,
                # whichever response was shown first (a wrong mapping would break this)
                assert (p > 0.5) == (verdict == "A")
                n += 1
    assert n >= 10 and {s for r in items for s in r["shown_first"]} == {0, 1}
    # a rerun is served from the cache, with the same probabilities
    again, calls_again = _bench(tmp_path / "b", cache, "--logprobs", "3")
    assert all(c["cached"] for c in calls_again)
    assert [r["call_probabilities"] for r in again] == [r["call_probabilities"] for r in items]
    # without --logprobs the requests are other requests: asked anew, nothing recorded
    plain, plain_calls = _bench(tmp_path / "c", cache)
    assert not any(c["cached"] for c in plain_calls)
    # the simulated judge answers alike whether or not it is asked for log-probabilities
    assert [r["call_verdicts"] for r in plain] == [r["call_verdicts"] for r in items]
    assert not any("call_probabilities" in r or "logprobs" in c
                   for r, c in zip(plain, plain_calls))
    decided = next(i for i, r in enumerate(again) if r["verdict"] in ("A", "B"))
    j = judgment_of(again[decided])  # the mean of the probabilities its calls gave it
    given = [p if j.verdict == "A" else 1 - p for p in again[decided]["call_probabilities"]]
    assert j.token_probability == pytest.approx(sum(given) / 2)
    assert judgment_of(plain[decided]).token_probability is None


def test_logprobs_on_a_listwise_protocol_or_anthropic_are_refused_before_any_call(tmp_path):
    # one alternative a token lists only the chosen letter: no A against B to weigh
    one = cli.invoke(app, ["bench", "judgebench", "--protocols", "both-orders", "--logprobs",
                           "1", "--out", str(tmp_path / "x")])
    assert one.exit_code == 2 and "greater than or equal to 2" in one.output, one.output
    for args, message in (
            (["bench", "truthfulqa", "--protocols", "pcf"], "--logprobs is for pairwise"),
            (["bench", "judgebench", "--protocols", "both-orders", "--model",
              "anthropic/claude-3-5-haiku-latest"], "Anthropic's API returns no token")):
        result = cli.invoke(app, [*args, "--logprobs", "2", "--out", str(tmp_path / "x")])
        assert result.exit_code == 2 and message in result.output, result.output
        assert not (tmp_path / "x").exists()


def _pj(i, *, p, right, agreement=1.0):
    return ItemJudgment(item_id=f"i{i}", protocol="pairwise", task="pairwise", winners=(0,),
                        verdict="A", combined=None, components=None, top_picks=("A",),
                        agreement=(True,), agreement_rate=agreement, flipped=False,
                        failed=False, failures=(), n_calls=1, n_ok=1,
                        gold="A>B" if right else "B>A", credit=1.0 if right else 0.0,
                        token_probability=p)


def test_the_token_probability_is_chosen_when_it_certifies_what_one_order_cannot():
    # one call an item: order agreement is 1 for every verdict (one rule for all: 40 right of
    # 60 cannot be certified at 80%). Token probability: 0.9 on the 40 right, 0.6 on the 20
    # wrong, so its threshold 0.9 accepts exactly the right ones.
    group = [_pj(i, p=0.9, right=True) for i in range(40)] + [
        _pj(40 + i, p=0.6, right=False) for i in range(20)]
    (r,) = selective_judgments(group, dataset="d", target=0.8, delta=0.1, seed=1)
    cal, test = split_items(60, 0.5, 1)
    right_cal, right_test = int((cal < 40).sum()), int((test < 40).sum())
    order, prob = r.rules[ORDER_SIGNAL], r.rules[PROBABILITY_SIGNAL]
    assert not order.certified  # 40/60 = 67% agree at its only threshold
    # each signal at delta / 2 = 0.05: 0.8 ** right_cal <= 0.05 needs right_cal >= 14
    assert right_cal >= 14 and prob.threshold == 0.9
    assert (prob.n_accepted, prob.n_disagree) == (right_cal, 0)
    assert r.signal == PROBABILITY_SIGNAL
    assert (r.test.n, r.test.n_accepted, r.test.n_agree) == (30, right_test, right_test)


def test_without_token_probabilities_only_order_agreement_is_calibrated():
    group = [_pj(i, p=None, right=True) for i in range(30)]
    (r,) = selective_judgments(group, dataset="d", target=0.8, delta=0.1)
    assert list(r.rules) == [ORDER_SIGNAL] and r.signal == ORDER_SIGNAL
    assert r.rules[ORDER_SIGNAL].threshold == pytest.approx(1.0)
