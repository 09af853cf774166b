"""The progress line of a real bench run at 80 columns, as docs/progress.png shows it.

Runs ``bench truthfulqa`` (direct vs PCF, K=7, 200 items) against the simulated judge with
50 ms latency and injected faults (2 attempts per call, so some calls fail), and when 120
items are done draws the line once into an 80-column recording console, saved as SVG
(``--svg``, default docs/progress.svg); Chromium turns that into the PNG::

    python scripts/progress_screenshot.py --svg /tmp/progress.svg
    chromium --headless --no-sandbox --disable-gpu --window-size=1000,120 \\
        --screenshot=docs/progress.png /tmp/progress.svg
"""

from __future__ import annotations

import argparse
import io
import tempfile
from pathlib import Path

from rich.console import Console
from rich.terminal_theme import MONOKAI

from jurybox.cli._progress import BenchProgress
from jurybox.compare import BenchConfig, run_bench
from jurybox.run import RunOptions
from jurybox.runner.retry import RetryPolicy
from jurybox.sim import Faults, SimConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--svg", type=Path, default=Path("docs/progress.svg"))
    parser.add_argument("--at", type=int, default=120, help="items done when drawn")
    args = parser.parse_args()
    shot = Console(width=80, record=True, file=io.StringIO(), force_terminal=True,
                   color_system="truecolor")
    progress = BenchProgress(console=Console(file=io.StringIO(), width=80))
    on_item = progress.on_item
    done = [0]

    def item(unit: object) -> None:
        on_item(unit)
        done[0] += 1
        if done[0] == args.at:
            task = progress.progress.tasks[0]
            shot.print(progress.line(task.completed, task.total, shot.width))

    progress.on_item = item  # type: ignore[method-assign]
    sim = SimConfig(bias="primacy", latency_ms=50.0,
                    faults=Faults(rate_429=0.02, rate_500=0.05, rate_malformed=0.05))
    config = BenchConfig(dataset="truthfulqa", model="sim", protocols=("direct", "pcf"), k=7,
                         limit=200, seed=0, sim=sim)
    with tempfile.TemporaryDirectory() as tmp, progress:
        options = RunOptions(cache_path=None, concurrency=32, retry=RetryPolicy(attempts=2))
        run_bench(config, Path(tmp) / "run", options=options, hooks=progress.hooks())
    print(shot.export_text(clear=False), end="")
    shot.save_svg(str(args.svg), title="jurybox bench truthfulqa (80 columns)", theme=MONOKAI)


if __name__ == "__main__":
    main()
