"""SIGKILL a ``--batch`` bench while its batches are submitted or polled, rerun it, and check
no request was paid twice and nothing was lost.

Per scenario a simulated judge is served (``jurybox serve-sim``, a subprocess) with batches
that stay in progress ``--batch-delay`` seconds (3 by default, so kills land during polling)
and end with 2% of their requests errored and 2% expired (sent again in a later round: a
resubmission after an expiry or an error is *not* paid twice). Then

Every run has its own server (a request's ``custom_id`` is its cache key, the same in every
run of the command: a second run on the same server would be counted as paying again).

- **reference**: one uninterrupted ``--batch`` run and one online run of the same command;
  their decisions (items.jsonl) and answers (calls.jsonl texts by cache key) must be
  identical, and the batch run's ``cost.batch_usd`` half the online run's ``cost.usd``;
- **trials**: the command in a child process, SIGKILLed (1 to ``--kills`` times in a row, each
  rerun killed again) at a seeded random moment: during *submission* (0-50 ms after a new
  ``intent`` line in batches.jsonl: between journalling a batch and the provider's id) or
  during *polling* (0 to the batch delay after a new ``created`` line); then run to the end.

A trial passes when

- the server's ``resubmitted`` counter (``GET /v1/sim/batch_stats``: a custom_id submitted
  again while an earlier submission was in progress or had succeeded) did not move;
- the latest decision of every (item, protocol) equals the reference's;
- each request was paid once: the prompt and completion tokens of the paid calls in
  calls.jsonl, summed over every session (``Totals.of_records``, cache hits excluded), equal
  the reference's (a request answered twice would add its tokens twice; one lost would lack
  them), and run.json's totals equal them;
- every batch in the journal ended (``read_journal``: ``ended``, ``rejected`` or ``lost``),
  and every session before the last says ``killed``.

Scenarios: ``pcf`` listwise direct+PCF (K=7) on 200 TruthfulQA items, openai/gpt-4o-mini (the
OpenAI Batch API); ``anthropic`` the same on 100 items, anthropic/claude-sonnet-4-0 (Message
Batches); ``apoc`` APOC on 50 JudgeBench pairs (both orders, then the keyed check); ``adaptive``
PCF ``--adaptive exact`` on 100 TruthfulQA items (later orders are later rounds).

Usage: python benchmarks/batch_kill.py [--trials 10] [--kills 3] [--seed 0] [--quick]
       [--scenarios pcf,anthropic,apoc,adaptive] [--batch-delay 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _killing import kill_when  # noqa: E402
from jurybox.rundir import read_jsonl  # noqa: E402
from jurybox.rundir.batches import read_journal  # noqa: E402
from jurybox.runner import Totals  # noqa: E402

#: Per-record fields that say how long something took, not what was decided.
TIMING = ("latency", "seconds", "elapsed", "time")


@dataclass(frozen=True)
class Scenario:
    name: str
    dataset: str
    model: str
    limit: int
    extra: tuple[str, ...]
    anthropic: bool = False


SCENARIOS = {s.name: s for s in (
    Scenario("pcf", "truthfulqa", "openai/gpt-4o-mini", 200,
             ("--protocols", "direct,pcf", "--k", "7")),
    Scenario("anthropic", "truthfulqa", "anthropic/claude-sonnet-4-0", 100,
             ("--protocols", "direct,pcf", "--k", "7"), anthropic=True),
    Scenario("apoc", "judgebench", "openai/gpt-4o-mini", 25, ("--protocols", "apoc")),
    Scenario("adaptive", "truthfulqa", "openai/gpt-4o-mini", 100,
             ("--protocols", "pcf", "--k", "7", "--adaptive", "exact")),
)}


@dataclass
class Server:
    proc: subprocess.Popen
    root: str  # http://127.0.0.1:PORT

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait()

    def stats(self) -> dict[str, int]:
        with urllib.request.urlopen(f"{self.root}/v1/sim/batch_stats", timeout=10) as resp:
            return json.loads(resp.read())


@dataclass
class Row:
    scenario: str
    trials: int = 0
    kills: int = 0
    submitted: int = 0
    resubmitted: int = 0
    rounds: list[int] = field(default_factory=list)
    identical: int = 0
    exact: int = 0
    passed: int = 0
    wall: float = 0.0


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), "OPENAI_API_KEY": "x",
            "ANTHROPIC_API_KEY": "x"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(dataset: str, delay: float, seed: int) -> Server:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "jurybox", "serve-sim", "--dataset", dataset,
                             "--port", str(port), "--batch-delay", str(delay),
                             "--batch-error-rate", "0.02", "--batch-expire-share", "0.02",
                             "--batch-seed", str(seed)], env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = Server(proc, f"http://127.0.0.1:{port}")
    for _ in range(300):
        try:
            server.stats()
            return server
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"serve-sim --dataset {dataset} did not start")


def bench_args(sc: Scenario, server: Server, out: Path, cache: Path, batch: bool) -> list[str]:
    base = server.root if sc.anthropic else f"{server.root}/v1"
    return [sys.executable, "-m", "jurybox", "bench", sc.dataset, "--model", sc.model,
            "--base-url", base, "--limit", str(sc.limit), *sc.extra, "--out", str(out),
            "--cache", str(cache), *(("--batch", "--batch-poll", "0.2") if batch else ())]


def run_to_end(args: list[str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(args, env=env(), capture_output=True, text=True)
    if done.returncode not in (0, 3):
        raise SystemExit(f"bench failed ({done.returncode}): {done.stderr[-2000:]}")
    return time.perf_counter() - t0


def journal_events(out: Path, kind: str) -> int:
    path = out / "batches.jsonl"
    if not path.exists():
        return 0
    n = 0
    for line in path.read_bytes().splitlines():
        try:
            n += json.loads(line).get("event") == kind
        except ValueError:
            pass  # the last line, being written
    return n


def kill_at(args: list[str], out: Path, phase: str, jitter: float) -> bool:
    """Start the bench and SIGKILL it ``jitter`` s after its next ``intent`` (submission) or
    ``created`` (polling) journal line; False if it finished first."""
    kind = "intent" if phase == "submission" else "created"
    seen = journal_events(out, kind)
    return kill_when(args, env(), lambda: journal_events(out, kind) > seen, jitter)


def decisions(out: Path) -> dict[tuple[str, str], dict]:
    """The latest decision of each (item, protocol), its timing fields left out."""
    return {(r["item_id"], r["protocol"]): {k: v for k, v in r.items()
                                            if not any(t in k for t in TIMING)}
            for r in read_jsonl(out / "items.jsonl")}


def answers(out: Path) -> dict[str, str]:
    """Each answered request's text (calls.jsonl) by what asked for it (its ``meta``: item,
    protocol calls, shown order, re-ask; the cache key names the server's port too)."""
    return {json.dumps(r["meta"], sort_keys=True): r["text"]
            for r in read_jsonl(out / "calls.jsonl")
            if r.get("error") is None and r.get("text") is not None}


def paid(out: Path) -> tuple[int, int]:
    totals = Totals.of_records(read_jsonl(out / "calls.jsonl"))
    return totals.prompt_tokens, totals.completion_tokens


def rounds(out: Path) -> int:
    """Batches the run created (the journal's batches with a provider id)."""
    return sum(b.batch_id is not None for b in read_journal(out / "batches.jsonl").values())


def reference(sc: Scenario, server: Server, online: Server, root: Path
              ) -> tuple[dict, tuple[int, int], int, float]:
    """The uninterrupted batch run checked against the online run; its decisions, paid
    tokens, rounds and wall time."""
    out_b, out_o = root / f"{sc.name}-batch", root / f"{sc.name}-online"
    before = server.stats()
    wall = run_to_end(bench_args(sc, server, out_b, root / f"{sc.name}-batch.sqlite", True))
    after = server.stats()
    run_to_end(bench_args(sc, online, out_o, root / f"{sc.name}-online.sqlite", False))
    same = decisions(out_b) == decisions(out_o)
    texts = answers(out_b) == answers(out_o)
    cost_b = json.loads((out_b / "summary.json").read_text())["cost"]
    cost_o = json.loads((out_o / "summary.json").read_text())["cost"]
    print(f"[{sc.name}] reference: {wall:.1f} s, {len(decisions(out_b))} decisions, "
          f"{rounds(out_b)} batches, {after['requests_submitted'] - before['requests_submitted']}"
          f" requests submitted, resubmitted {after['resubmitted'] - before['resubmitted']}; "
          f"batch vs online: decisions identical {same}, answers identical {texts}, tokens "
          f"{paid(out_b)} vs {paid(out_o)}; cost batch_usd {cost_b['batch_usd']} (online_usd "
          f"{cost_b['online_usd']}) vs online usd {cost_o['usd']}: half "
          f"{abs(2 * cost_b['batch_usd'] - cost_o['usd']) <= 2e-6}")
    if not (same and texts and paid(out_b) == paid(out_o)):
        raise SystemExit(f"[{sc.name}] the batch run differs from the online run")
    return decisions(out_b), paid(out_b), rounds(out_b), wall


def trial(sc: Scenario, server: Server, root: Path, i: int, rng: random.Random, kills: int,
          delay: float, ref: tuple[dict, tuple[int, int]], row: Row) -> None:
    """One trial on its own server (a custom_id is a cache key: the same requests as the
    reference's, which that server would rightly count as paid twice)."""
    out, cache = root / f"{sc.name}-trial-{i}", root / f"{sc.name}-trial-{i}.sqlite"
    args = bench_args(sc, server, out, cache, True)
    before, moments, landed = server.stats(), [], 0
    t0 = time.perf_counter()
    for _ in range(rng.randint(1, kills)):
        phase = rng.choice(("submission", "polling"))
        jitter = round(rng.uniform(0, 0.05 if phase == "submission" else delay), 3)
        if not kill_at(args, out, phase, jitter):
            moments.append((phase, jitter, "finished first"))
            break
        landed += 1
        moments.append((phase, jitter))
    run_to_end(args)
    wall = time.perf_counter() - t0
    after = server.stats()
    manifest = json.loads((out / "run.json").read_text())
    statuses = [s["status"] for s in manifest["sessions"]]
    resub = after["resubmitted"] - before["resubmitted"]
    same = decisions(out) == ref[0]
    logged = Totals.of_records(read_jsonl(out / "calls.jsonl")).as_dict()
    exact = paid(out) == ref[1] and manifest["totals"] == logged
    ended = all(b.ended for b in read_journal(out / "batches.jsonl").values())
    # sessions: killed ones, then complete; a kill that came after the run had finished
    # ("finished first") leaves a complete session before the final rerun's
    finished = [s for s in statuses if s != "killed"]
    ok = (resub == 0 and same and exact and ended and "killed" not in statuses[len(statuses)
          - len(finished):] and set(finished) <= {"complete", "partial"} and bool(finished))
    row.trials += 1
    row.kills += landed
    row.submitted += after["requests_submitted"] - before["requests_submitted"]
    row.resubmitted += resub
    row.rounds.append(after["batches_created"] - before["batches_created"])
    row.identical += same
    row.exact += exact
    row.passed += ok
    row.wall += wall
    print(f"[{sc.name}] trial {i}: killed {landed}x {moments}; {wall:.1f} s; resubmitted "
          f"{resub}; decisions identical {same}; tokens {paid(out)} (reference {ref[1]}), "
          f"totals exact {exact}; journal ended {ended}; sessions {statuses}"
          + ("" if ok else "  FAILED"))


def table(rows: list[Row], refs: dict[str, tuple[int, float]]) -> None:
    print("\n| scenario | trials | kills | requests submitted | resubmitted | rounds (batches "
          "per run: reference / trials) | decisions identical | totals exact | wall s "
          "(reference / trial mean) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        n_ref, wall_ref = refs[r.scenario]
        print(f"| {r.scenario} | {r.trials} | {r.kills} | {r.submitted} | {r.resubmitted} | "
              f"{n_ref} / {min(r.rounds)}-{max(r.rounds)} | {r.identical}/{r.trials} | "
              f"{r.exact}/{r.trials} | {wall_ref:.1f} / {r.wall / max(r.trials, 1):.1f} |")
    print(f"\n{sum(r.passed for r in rows)} of {sum(r.trials for r in rows)} trials passed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--kills", type=int, default=3, help="most kills in a row per trial")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-delay", type=float, default=3.0)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--quick", action="store_true", help="3 trials per scenario")
    args = parser.parse_args()
    # SIGTERM unwinds the with-blocks, which stop the servers this script started
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    trials = 3 if args.quick else args.trials
    rng = random.Random(args.seed)
    rows, refs = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in args.scenarios.split(","):
            sc = SCENARIOS[name]
            with serve(sc.dataset, args.batch_delay, args.seed) as server, \
                    serve(sc.dataset, args.batch_delay, args.seed) as online:
                decided, tokens, n_rounds, wall = reference(sc, server, online, root)
            refs[name] = (n_rounds, wall)
            row = Row(name)
            for i in range(trials):
                with serve(sc.dataset, args.batch_delay, args.seed) as server:
                    trial(sc, server, root, i, rng, args.kills, args.batch_delay,
                          (decided, tokens), row)
            rows.append(row)
    table(rows, refs)


if __name__ == "__main__":
    main()
