"""``python -m llama_cpp.server`` for tests: an OpenAI-compatible server on 127.0.0.1 that
answers as jurybox's simulated judge (knowing the bundled TruthfulQA items) and dies the way a
llama.cpp build for another CPU dies.

Environment:
    FAKE_LLAMA_DIE_AT: the completion (1-based, the readiness completion included) at which
        the process kills itself, before answering; unset: never.
    FAKE_LLAMA_SIGNAL: the signal it dies with (default SIGILL, as an AMX instruction on a
        CPU that cannot run it).
"""

import argparse
import json
import os
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jurybox.datasets import load_dataset
from jurybox.sim import SimJudge

parser = argparse.ArgumentParser()
parser.add_argument("--model")
parser.add_argument("--model_alias", default="fake")
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=8080)
args, _ = parser.parse_known_args()

die_at = int(os.environ.get("FAKE_LLAMA_DIE_AT", "0") or 0)
die_with = getattr(signal, os.environ.get("FAKE_LLAMA_SIGNAL", "SIGILL"))
judge = SimJudge(load_dataset("truthfulqa").iter_items())
completions = 0
print("fake llama.cpp server: model loaded", flush=True)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def _send(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._send({"object": "list", "data": [{"id": args.model_alias, "object": "model"}]})

    def do_POST(self):
        global completions
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        completions += 1
        if completions == die_at:
            print(f"fake llama.cpp server: dying with {die_with.name}", flush=True)
            os.kill(os.getpid(), die_with)
            time.sleep(60)  # another thread may take the signal: never answer meanwhile
        answer = judge.answer(body, 0)
        self._send({"choices": [{"index": 0, "finish_reason": answer.finish_reason,
                                 "message": {"role": "assistant", "content": answer.text}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5}})


ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()
sys.exit(0)
