"""The local judge's errors: each one line, before any work, with nothing left running."""

import socket

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import ConfigError
from jurybox.providers import LocalServer, local

from ..cli_checks import one_line_error

runner = CliRunner()


def test_a_missing_extra_names_the_exact_pip_command(monkeypatch, tmp_path):
    real = local.importlib.util.find_spec
    monkeypatch.setattr(local.importlib.util, "find_spec",
                        lambda name: None if name == "llama_cpp" else real(name))
    with pytest.raises(ConfigError, match=r"pip install 'jurybox\[local\]'"):
        LocalServer().start()
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--model", "local", "--limit", "1",
                                        "--out", str(tmp_path / "o")]),
                    "pip install 'jurybox[local]'")
    assert not (tmp_path / "o").exists()


def test_a_gguf_that_is_missing_or_not_gguf_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(local, "_require_extra", lambda: None)
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--model",
                                        f"local/{tmp_path}/none.gguf", "--out",
                                        str(tmp_path / "o")]), "none.gguf", "not found")
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"PK\x03\x04 not a model")
    one_line_error(runner.invoke(app, ["serve-local", "--gguf", str(fake)]),
                    "fake.gguf", "is not a GGUF file")


def test_a_port_in_use_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(local, "_require_extra", lambda: None)
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        one_line_error(runner.invoke(app, ["serve-local", "--gguf", str(gguf), "--port",
                                            str(port)]), f"port {port}", "in use")


def test_a_server_that_exits_at_once_is_one_line_and_nothing_is_left(monkeypatch, tmp_path):
    monkeypatch.setattr(local, "_require_extra", lambda: None)
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)  # llama.cpp cannot load this: the server exits
    server = LocalServer(gguf, ready_timeout_s=60)
    if local.importlib.util.find_spec("llama_cpp") is None:
        monkeypatch.setattr(local.sys, "executable", "false")  # no server: `false` exits 1
    with pytest.raises(ConfigError, match="exited .* before answering"):
        server.start()
    assert server.exited()
