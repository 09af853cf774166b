"""How long the simulated judge takes to serve a large batch, both APIs.

One batch of N listwise requests (4 candidates, the items of ``make_items``-like synthetic
questions) with ``delay_s`` 0: the upload (OpenAI) or create request, the first poll (which
answers every request: the server's loop is busy for that long, nothing else is served
meanwhile), and reading the results. Prints seconds per step and the result size.

Usage: python benchmarks/batch_sim.py [--requests 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import aiohttp

from jurybox.datasets import ListwiseItem
from jurybox.protocols import listwise_request
from jurybox.sim import BatchScript, SimJudge, SimServer


def _bodies(n: int) -> tuple[list[ListwiseItem], list[dict]]:
    items = [ListwiseItem(f"q{i}", f"Question number {i}?",
                          tuple(f"answer {i}.{j}" for j in range(4)), frozenset({0}))
             for i in range(n)]
    bodies = []
    for item in items:
        request = listwise_request(item.prompt, list(item.candidates), tag="00aa00aa", seed=1)
        bodies.append({"model": "judge", "seed": 1,
                       "messages": [m.model_dump() for m in request.messages]})
    return items, bodies


async def _openai(http: aiohttp.ClientSession, base: str, bodies: list[dict]) -> dict:
    text = "".join(json.dumps({"custom_id": f"r{i}", "method": "POST",
                               "url": "/v1/chat/completions", "body": b}) + "\n"
                   for i, b in enumerate(bodies))
    t0 = time.perf_counter()
    form = aiohttp.FormData()
    form.add_field("purpose", "batch")
    form.add_field("file", text.encode(), filename="in.jsonl")
    async with http.post(f"{base}/files", data=form) as resp:
        file = await resp.json()
    async with http.post(f"{base}/batches", json={"input_file_id": file["id"],
                                                  "endpoint": "/v1/chat/completions",
                                                  "completion_window": "24h"}) as resp:
        batch = await resp.json()
    t1 = time.perf_counter()
    async with http.get(f"{base}/batches/{batch['id']}") as resp:
        batch = await resp.json()
    t2 = time.perf_counter()
    async with http.get(f"{base}/files/{batch['output_file_id']}/content") as resp:
        out = await resp.read()
    t3 = time.perf_counter()
    return {"input MB": len(text) / 1e6, "upload+create s": t1 - t0, "first poll s": t2 - t1,
            "read s": t3 - t2, "output MB": len(out) / 1e6, "status": batch["status"]}


async def _anthropic(http: aiohttp.ClientSession, root: str, bodies: list[dict]) -> dict:
    requests = [{"custom_id": f"r{i}", "params": {"model": "c", "max_tokens": 1024,
                                                  "system": b["messages"][0]["content"],
                                                  "messages": b["messages"][1:]}}
                for i, b in enumerate(bodies)]
    t0 = time.perf_counter()
    async with http.post(f"{root}/v1/messages/batches", json={"requests": requests}) as resp:
        batch = await resp.json()
    t1 = time.perf_counter()
    async with http.get(f"{root}/v1/messages/batches/{batch['id']}") as resp:
        batch = await resp.json()
    t2 = time.perf_counter()
    async with http.get(batch["results_url"]) as resp:
        out = await resp.read()
    t3 = time.perf_counter()
    return {"create s": t1 - t0, "first poll s": t2 - t1, "read s": t3 - t2,
            "output MB": len(out) / 1e6, "status": batch["processing_status"]}


async def _main(n: int) -> None:
    items, bodies = _bodies(n)
    with SimServer(SimJudge(items), batch=BatchScript(delay_s=0.0)) as server:
        timeout = aiohttp.ClientTimeout(total=3600)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            for name, result in (
                    ("openai", await _openai(http, server.base_url, bodies)),
                    ("anthropic", await _anthropic(http, f"http://127.0.0.1:{server.port}",
                                                   bodies))):
                print(name, n, "requests:", ", ".join(
                    f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                    for k, v in result.items()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    asyncio.run(_main(parser.parse_args().requests))
