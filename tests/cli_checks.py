"""Assertions shared by the command-line tests."""

from __future__ import annotations

from typing import Any


def one_line_error(result: Any, *fragments: str, besides: str | None = None) -> str:
    """Assert ``result`` (a typer CliRunner result) is exit 2 with exactly one output line,
    an ``error:`` line holding every fragment and no traceback; return that line.

    ``besides``: a ``warning:`` line holding this text may come before it (an error part-way
    through a run, after the run's own warnings)."""
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip() and not (
        besides is not None and ln.startswith("warning:") and besides in ln)]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]
