"""What a command imports: ``jurybox --help`` and ``jurybox report`` on an unchanged run load
neither scipy, numpy, aiohttp, pydantic nor the report templates (the figures are in the
README; these check what is loaded, which is what the time follows)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("scipy", "numpy", "aiohttp", "pydantic", "jinja2", "yaml", "openai", "matplotlib")


def _loaded_after(code: str) -> list[str]:
    """The HEAVY modules loaded by a fresh interpreter after running ``code``."""
    probe = (f"import sys\n{code}\nimport json\n"
             f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


# typer (0.29) converts every command's parameters with pydantic: loaded by any command
TYPER = ["pydantic"]


def test_the_command_line_and_its_help_import_no_heavy_library():
    assert _loaded_after("import jurybox.cli") == []
    assert _loaded_after("from typer.testing import CliRunner\nfrom jurybox.cli import app\n"
                         "r = CliRunner().invoke(app, ['bench', '--help'])\n"
                         "assert r.exit_code == 0, r.output") in ([], TYPER)


@pytest.mark.parametrize("name", ["jurybox.run.options", "jurybox.limits",
                                  "jurybox.providers.endpoints",
                                  "jurybox.providers.transport", "jurybox.reports.freshness",
                                  "jurybox.reports.index"])
def test_light_modules_stay_light(name):
    assert _loaded_after(f"import {name}") == []


def test_package_names_still_load_on_first_use():
    assert "aiohttp" in _loaded_after("from jurybox.providers import OpenAICompatibleProvider")
    assert "scipy" not in _loaded_after("import jurybox.stats")
    loaded = _loaded_after("from jurybox.protocols import PROTOCOLS\n"
                           "assert {'direct', 'pcf', 'apoc', 'rubric'} <= set(PROTOCOLS)")
    assert "scipy" not in loaded


def test_report_on_an_unchanged_run_imports_no_statistics(tmp_path):
    from typer.testing import CliRunner

    from jurybox.cli import app

    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "3", "--k", "2",
                                      "--out", str(out), "--no-cache"])
    assert result.exit_code == 0, result.output
    code = ("from typer.testing import CliRunner\nfrom jurybox.cli import app\n"
            f"r = CliRunner().invoke(app, ['report', {str(out)!r}])\n"
            "assert r.exit_code == 0 and 'up to date' in r.output, r.output")
    assert _loaded_after(code) in ([], TYPER)
