"""``jurybox serve-local``: run the local llama.cpp judge as a foreground server."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Annotated, Optional


from ._declared import declared
from ..terminal import safe_text
from ._common import console, fail_cleanly


@fail_cleanly
def serve_local(
    gguf: Annotated[Optional[Path], declared("serve-local --gguf")] = None,
    port: Annotated[int, declared("serve-local --port", min=1, max=65535)] = 8080,
    threads: Annotated[Optional[int], declared("serve-local --threads", min=1, max=1024)
    ] = None,
    ctx: Annotated[int, declared("serve-local --ctx", min=256, max=1048576)
                   ] = 8192,
    ready_timeout: Annotated[float, declared("serve-local --ready-timeout", min=1, max=3600)
                             ] = 120.0,
) -> None:
    """Serve a GGUF judge with llama.cpp's OpenAI-compatible server on 127.0.0.1 (needs
    `pip install 'jurybox[local]'`). Point a run at it with `--model llamacpp/<alias>
    --base-url http://127.0.0.1:PORT/v1`, or let `--model local` start one for the run. It
    is ready after answering one real completion: a llama.cpp build for another CPU (SIGILL)
    is one error line with the command that rebuilds it."""
    from ..errors import EndpointGoneError
    from ..providers import LocalServer

    with LocalServer(gguf, port=port, threads=threads, ctx=ctx,
                     ready_timeout_s=ready_timeout) as server:
        console.print(safe_text(f"local judge on {server.base_url} ({server.label}); model "
                                f"name {server.alias!r}: --model llamacpp/{server.alias} "
                                f"--base-url {server.base_url}; Ctrl-C stops it"),
                      highlight=False, markup=False)
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.wait(1.0):
                if server.exited():  # one line naming how it ended (SIGILL: the rebuild)
                    raise EndpointGoneError(server.death_message("while serving"))
        except KeyboardInterrupt:
            pass
