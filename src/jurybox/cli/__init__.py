"""The ``jurybox`` command line: thin commands over the library."""

from __future__ import annotations

import logging
import os

import typer

from ..runner import tune_gc
from .agreement import agreement
from .bench import bench
from .cache_cmd import cache
from .demo import demo
from .personalize import personalize
from .score import score
from .serve_sim import serve_sim

__all__ = ["app", "main"]

app = typer.Typer(help="jurybox: robust, reproducible LLM-as-a-judge evaluation.",
                  rich_markup_mode="markdown",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
app.command()(demo)
app.command()(bench)
app.command()(score)
app.command()(agreement)
app.command()(personalize)
app.command("serve-sim")(serve_sim)
app.command()(cache)


def main() -> None:
    """Console-script entry point."""
    logging.basicConfig(level=os.environ.get("JURYBOX_LOG_LEVEL", "WARNING"),
                        format="%(levelname)s %(name)s: %(message)s")
    tune_gc()
    app()
