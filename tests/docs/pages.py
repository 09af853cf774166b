"""Reading the documentation's Markdown: code blocks by section, links, heading anchors."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

FENCE = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# [text](target) and ![alt](target); reference-style [text][id] links are mkdocstrings' own
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)


def section(path: Path, heading: str) -> str:
    """The text of ``path`` from the line ``heading`` up to the next heading of its level.

    Raises:
        ValueError: no line of ``path`` is ``heading``.
    """
    text = path.read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(heading)}[ \t]*$", text, re.M)
    if match is None:
        raise ValueError(f"{path.name}: no heading {heading!r}")
    level = len(heading) - len(heading.lstrip("#"))
    rest = text[match.end():]
    end = re.search(rf"^#{{1,{level}}}\s", FENCE.sub(lambda m: " " * len(m[0]), rest), re.M)
    return rest[:end.start()] if end else rest


def code_block(text: str, language: str, starts: str = "") -> str:
    """The first fenced block of ``language`` ('' for a bare fence) whose body starts with
    ``starts``.

    Raises:
        ValueError: there is none.
    """
    for match in FENCE.finditer(text):
        info, _, rest = match[0].partition("\n")
        body = rest[:rest.rindex("```")]
        if info[3:].strip() == language and body.startswith(starts):
            return body
    raise ValueError(f"no ```{language} block starting with {starts!r}")


def slug(heading: str) -> str:
    """The anchor Python-Markdown's ``toc`` extension gives a heading (its default slugify),
    after dropping the Markdown of the heading: code ticks, emphasis, link targets.

    >>> slug("What a run will cost: `--dry-run`")
    'what-a-run-will-cost-dry-run'
    >>> slug("Krippendorff's alpha")
    'krippendorffs-alpha'
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    """The heading anchors of a Markdown page (Python-Markdown numbers repeats: x, x_1, ...)."""
    seen: set[str] = set()
    for match in HEADING.finditer(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(match[2])
        name, n = base, 0
        while name in seen:
            n += 1
            name = f"{base}_{n}"
        seen.add(name)
    return seen


@dataclass(frozen=True)
class BrokenLink:
    page: str
    target: str
    reason: str


def broken_links(path: Path) -> list[BrokenLink]:
    """Every relative link or image of ``path`` whose file or anchor does not exist.

    Links inside code (fenced or inline) are not links; ``http:``, ``https:`` and ``mailto:``
    targets are not checked (the documentation is read offline).
    """
    text = INLINE_CODE.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            broken.append(BrokenLink(path.name, target, "no such file"))
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            broken.append(BrokenLink(path.name, target, f"no heading #{anchor} in {dest.name}"))
    return broken
