"""Every command block of README.md runs as pasted, in order, in a fresh clone after the
set-up command (``make demo``), with the PATH a new user has (no virtual environment's bin on
it: a block calls ``.venv/bin/jurybox`` or activates the venv itself).

The blocks are read from the clone's README.md (```bash fences), so a README change is tested
as committed: a fresh ``git clone`` of this working tree's HEAD into a temporary folder (commit
first). Each block is one ``bash`` script (``set -eo pipefail``: a failing line fails the test)
in the clone, with:

- no ``JURYBOX_*``, ``OPENAI_*`` or ``ANTHROPIC_*`` variable (a real key is never used; a
  block's own ``export OPENAI_API_KEY=...`` sets the dummy ``...``), an empty response cache
  of its own (``JURYBOX_CACHE`` in the temporary folder: a new user's first run), no make
  variables of an enclosing ``make``;
- lines that need what a test machine cannot have, marked in the README with a ``# needs ...``
  comment (a real key and network, a vLLM server), and the lines of :data:`NOT_RUN`, replaced by
  ``:`` (the test prints each, with its reason);
- a ``--dry-run`` line run under ``unshare -rn`` (no network at all) where user namespaces
  allow it: the dry run is offline.

The bare fence that follows a block is what the block prints: for the simulated judge (seeded)
every line of it, numbers included, must be in the output; for the real-judge tier, every
line but the table's with its numbers free (a real model's numbers are its own). A ```json
block is the file the text before it names (```examples/two.jsonl```): they must be equal.

The real-judge tier is every block with a ``make local`` line (a llama.cpp build, 10-15 minutes
on 2 cores the first time): :func:`test_readme_real_judge_blocks`, marked ``real`` as well
(``make test-readme-real``); :func:`test_readme_blocks_run_as_pasted` (``make test-readme``)
runs every other block.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .pages import FENCE, ROOT

pytestmark = pytest.mark.readme

SETUP = "make demo"
REAL_TIER = "make local"
#: README lines this test does not run, and why (lines marked ``# needs ...`` aside)
NOT_RUN = {"make test": "the test suite, 6 minutes: CI runs it as a step of its own (.ci/run)"}
NEEDS = re.compile(r"#\s*(needs\b.*)$")
DEAD_ENV = re.compile(r"^(JURYBOX_|OPENAI_|ANTHROPIC_)|^(VIRTUAL_ENV|PYTHONPATH|PYTHONHOME|"
                      r"MAKEFLAGS|MAKELEVEL|MFLAGS|MAKEOVERRIDES)$")
NUMBER = re.compile(r"\d[\d.,]*")


@dataclass
class Block:
    """A fenced block of the README: its language, text, the prose before it, and the bare
    fence right after it (what it prints), if any."""

    language: str
    text: str
    before: str
    shown: str | None = None

    @property
    def real(self) -> bool:
        return any(line.strip().startswith(REAL_TIER) for line in self.text.splitlines())


def readme_blocks(readme: Path) -> list[Block]:
    """The README's fenced blocks in order; a bare fence that directly follows a ```bash
    block (blank lines between at most) is that block's ``shown`` output."""
    text = readme.read_text(encoding="utf-8")
    blocks: list[Block] = []
    end = 0
    for match in FENCE.finditer(text):
        info, _, rest = match[0].partition("\n")
        between = text[end:match.start()]
        end = match.end()
        language, body = info[3:].strip(), rest[:rest.rindex("```")]
        if (language == "" and blocks and blocks[-1].language == "bash"
                and not between.strip()):
            blocks[-1].shown = body
            continue
        blocks.append(Block(language, body, between))
    return blocks


def _script(block: Block, offline: bool) -> tuple[str, list[str]]:
    """The block as a bash script, and what it leaves out (line: reason)."""
    lines, left_out = ["set -eo pipefail"], []
    for line in block.text.splitlines():
        command = line.split("#", 1)[0].strip()
        needs = NEEDS.search(line)
        reason = NOT_RUN.get(command) or (needs[1] if needs and command else None)
        if reason:
            left_out.append(f"{command}  ({reason})")
            lines.append(":")
        elif offline and "--dry-run" in command:
            lines.append(f"unshare -rn bash -c {_quote(line)}")
        else:
            lines.append(line)
    return "\n".join(lines) + "\n", left_out


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _shape(line: str) -> re.Pattern[str]:
    """``line`` with each number free (a real judge's numbers are its own)."""
    parts = NUMBER.split(_flat(line))
    return re.compile(r"[\d.,]+".join(map(re.escape, parts)))


def check_shown(block: Block, output: str) -> None:
    """Every line the README shows under ``block`` is in what it printed (exactly for the
    seeded simulated judge; the real tier: every line but the table's, numbers free)."""
    if block.shown is None:
        return
    printed = _flat(output)
    for line in block.shown.splitlines():
        if not line.strip():
            continue
        if not block.real:
            assert _flat(line) in printed, f"README shows {line!r}; printed:\n{output}"
        elif not line.startswith(("│", "┃")):
            assert _shape(line).search(printed), f"README shows {line!r}; printed:\n{output}"


def _new_user_env(tmp: Path) -> dict[str, str]:
    """The environment of a new user's terminal: no venv bin on PATH, no jurybox variables,
    keys or make variables; an empty response cache of its own."""
    env = {k: v for k, v in os.environ.items() if not DEAD_ENV.search(k)}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep)
        if p and not (Path(p).parent / "pyvenv.cfg").exists())
    env["JURYBOX_CACHE"] = str(tmp / "cache.sqlite")
    found = shutil.which("jurybox", path=env["PATH"])
    assert found is None, f"jurybox is on PATH at {found}: a new user's PATH has none"
    return env


def _can_unshare() -> bool:
    try:
        return subprocess.run(["unshare", "-rn", "true"], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@dataclass
class Clone:
    path: Path
    env: dict[str, str]
    blocks: list[Block]
    offline: bool

    def run(self, block: Block, *, timeout: float) -> str:
        """Run ``block`` as pasted; its output (stdout and stderr)."""
        script, left_out = _script(block, self.offline)
        print(f"\n--- README block ({len(block.text.splitlines())} lines):\n{block.text}",
              flush=True)
        for line in left_out:
            print(f"not run: {line}", flush=True)
        done = subprocess.run(["bash", "-c", script], cwd=self.path, env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=timeout)
        assert done.returncode == 0, (f"README block failed (exit {done.returncode}):\n"
                                      f"{block.text}\n--- output:\n{done.stdout[-6000:]}")
        return done.stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clone]:
    """A fresh clone of HEAD with the README's set-up block run in it."""
    tmp = tmp_path_factory.mktemp("readme")
    path = tmp / "jurybox"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(path)], check=True,
                   capture_output=True, timeout=300)
    offline = _can_unshare()
    if not offline:
        print("\nunshare -rn is not allowed here: the dry run runs with the network",
              flush=True)
    blocks = readme_blocks(path / "README.md")
    commands = [b for b in blocks if b.language == "bash"]
    assert commands and any(line.strip().startswith(SETUP)
                            for line in commands[0].text.splitlines()), \
        f"the README's first command block is not the set-up ({SETUP})"
    result = Clone(path, _new_user_env(tmp), blocks, offline)
    check_shown(commands[0], result.run(commands[0], timeout=1800))
    assert (path / ".venv" / "bin" / "jurybox").exists()
    yield result


def test_readme_blocks_run_as_pasted(clone: Clone) -> None:
    """After the set-up block, every command block but the real-judge tier's, in order; each
    ```json block equals the file it stands for."""
    files = 0
    for block in clone.blocks[1:]:
        if block.language == "json":
            named = re.findall(r"`([\w./-]+\.jsonl?)`", block.before)
            assert named, f"a ```json block names no file before it:\n{block.text}"
            assert (clone.path / named[-1]).read_text(encoding="utf-8") == block.text, \
                f"README's {named[-1]} is not the shipped file"
            files += 1
        elif block.language == "bash" and not block.real:
            output = clone.run(block, timeout=900)
            check_shown(block, output)
            if "--dry-run" in block.text:
                assert "no model call was made" in output
    assert files >= 1  # the Quickstart's examples/two.jsonl


def test_readme_shows_what_the_quickstart_prints(clone: Clone) -> None:
    """The simulated judge's Quickstart shows its output, and that output is checked (by
    :func:`check_shown` in the test above): its stable shape is there."""
    (quick,) = [b for b in clone.blocks if b.language == "bash" and "--model sim" in b.text
                and "jurybox rank" not in b.text]
    assert quick.shown is not None
    assert "2 items: 0 failed;" in quick.shown
    assert "verdicts on unlabelled items are position-biased noise" in quick.shown


@pytest.mark.real
def test_readme_real_judge_blocks(clone: Clone) -> None:
    """The real-judge tier (``make local`` and the local judge), after the set-up."""
    real = [b for b in clone.blocks if b.language == "bash" and b.real]
    assert real, f"no README block has a {REAL_TIER!r} line"
    for block in real:
        check_shown(block, clone.run(block, timeout=3600))
