"""Which llama.cpp build is installed, and the install path that replaces a native one with a
portable one (scripts/install_local.py, run by make local, make test-real and .ci/run)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from jurybox.providers import llama_build
from jurybox.providers.llama_build import PORTABLE_CMAKE_ARGS, LlamaBuild, installed_build

ROOT = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).parent / "fake_llama"
# the system info lines of llama-cpp-python 0.3.36 as built on this project's machines: with
# install_local.py's flags, and by a plain pip install on a CPU with AMX (-march=native)
PORTABLE = ("CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
            "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | ")
NATIVE = ("CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX_VNNI = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | "
          "BMI2 = 1 | AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | "
          "AMX_INT8 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | ")


def test_a_native_build_is_told_from_a_portable_one_by_its_compiled_instruction_sets():
    portable, native = LlamaBuild("0.3.36", PORTABLE), LlamaBuild("0.3.36", NATIVE)
    assert portable.portable and portable.native_features == []
    assert native.native_features == ["AMX_INT8", "AVX512", "AVX512_BF16", "AVX512_VBMI",
                                      "AVX512_VNNI", "AVX_VNNI"]
    assert native.describe() == ("llama-cpp-python 0.3.36, native: compiled with AMX_INT8, "
                                 "AVX512, AVX512_BF16, AVX512_VBMI, AVX512_VNNI, AVX_VNNI")
    assert LlamaBuild("0.3.36", "CPU : AVX512 = 0 | AVX2 = 1 |").portable  # 0 is off


def test_installed_build_asks_a_child_process(monkeypatch, tmp_path):
    monkeypatch.setenv("PYTHONPATH", str(FAKE))
    monkeypatch.setenv("FAKE_LLAMA_SYSTEM_INFO", NATIVE)
    assert installed_build() == LlamaBuild("0.3.36", NATIVE)
    broken = tmp_path / "llama_cpp"  # a llama_cpp whose library cannot be loaded: None
    broken.mkdir()
    (broken / "__init__.py").write_text("raise OSError('libllama.so: cannot open')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert installed_build() is None


def _install_local(monkeypatch, tmp_path, installed: list[LlamaBuild | None]):
    """scripts/install_local.py with ``installed_build`` answering from ``installed`` (before,
    after) and pip recorded instead of run."""
    spec = importlib.util.spec_from_file_location("install_local",
                                                  ROOT / "scripts" / "install_local.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setenv("JURYBOX_WHEELS", str(tmp_path / "wheels"))
    answers = iter(installed)
    monkeypatch.setattr(module, "installed_build", lambda: next(answers))
    monkeypatch.setattr(module, "portable_cmake_args", lambda: PORTABLE_CMAKE_ARGS)
    calls: list[tuple[tuple[str, ...], dict[str, str] | None]] = []

    def pip(*args: str, env: dict[str, str] | None = None) -> None:
        calls.append((args, env))
        if args[0] == "wheel":  # what pip wheel leaves in --wheel-dir
            folder = Path(args[args.index("--wheel-dir") + 1])
            (folder / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl").write_bytes(b"")
    monkeypatch.setattr(module, "pip", pip)
    return module, calls


def test_a_portable_build_is_kept(monkeypatch, tmp_path):
    module, calls = _install_local(monkeypatch, tmp_path, [LlamaBuild("0.3.36", PORTABLE)] * 2)
    assert module.main() == 0
    assert [c[0][:3] for c in calls] == [("install", "--quiet", "-e")]


def test_a_native_build_is_rebuilt_portably_never_from_pips_cache(monkeypatch, tmp_path,
                                                                   capsys):
    module, calls = _install_local(monkeypatch, tmp_path, [LlamaBuild("0.3.36", NATIVE),
                                                           LlamaBuild("0.3.36", PORTABLE)])
    assert module.main() == 0
    (wheel_args, env), (install_args, _), (extra_args, _) = calls
    assert wheel_args[:2] == ("wheel", "--no-deps") and "--no-cache-dir" in wheel_args
    assert "--no-binary" in wheel_args and wheel_args[-1] == "llama-cpp-python==0.3.36"
    assert env is not None and env["CMAKE_ARGS"] == PORTABLE_CMAKE_ARGS
    folder = module.wheel_dir(PORTABLE_CMAKE_ARGS)
    assert folder.parent == tmp_path / "wheels"
    assert folder.name.startswith(f"llama-cpp-python-0.3.36-cp{sys.version_info.major}"
                                  f"{sys.version_info.minor}-")
    assert install_args[:3] == ("install", "--quiet", "--force-reinstall")
    assert install_args[-1].startswith(str(folder))
    assert extra_args[-1].endswith("[local]")
    assert "native: compiled with AMX_INT8" in capsys.readouterr().out
    # the next time (a new venv), the cached portable wheel is installed without a build
    module, calls = _install_local(monkeypatch, tmp_path, [None, LlamaBuild("0.3.36", PORTABLE)])
    assert module.main() == 0
    assert [c[0][0] for c in calls] == ["install", "install"]


def test_a_build_still_native_after_the_install_fails_the_install(monkeypatch, tmp_path,
                                                                  capsys):
    module, _ = _install_local(monkeypatch, tmp_path, [LlamaBuild("0.3.36", NATIVE)] * 2)
    assert module.main() == 1
    assert "still not portable" in capsys.readouterr().err


@pytest.mark.parametrize("machine,args", [("x86_64", PORTABLE_CMAKE_ARGS),
                                          ("aarch64", "-DGGML_NATIVE=OFF")])
def test_portable_flags_per_machine(machine, args):
    assert llama_build.portable_cmake_args(machine) == args
