"""The user's own judging criteria and prompt templates for listwise and pairwise judges.

Two ways to change what a judge is asked, both recorded in run.json and part of every request
(so of every cache key):

- **criteria**: text that replaces the factuality instructions ("judge factual accuracy")
  with the user's ("judge helpfulness for a beginner"); the answer format stays ours.
- **template**: a file whose text becomes the user message. It places our blocks with
  ``{question}`` and ``{candidates}`` (each exactly once), and may place ``{format}`` (the
  answer format; appended at the end when absent, because the judge's answer is parsed
  against it) and ``{criteria}`` (only with criteria given). ``{{`` and ``}}`` are literal
  braces. The blocks themselves (per-request delimiter tags, escaping of dataset text) stay
  ours, so a template cannot make a candidate able to forge a label or a verdict.

The factuality prompt stays the default: with neither, requests are byte-identical to what
they were before this module existed (same cache keys).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path

from ..datasets.validate import read_bounded
from ..errors import ConfigError, DataError

__all__ = ["JudgePrompt", "load_template", "PLACEHOLDERS", "MAX_CRITERIA_CHARS",
           "MAX_TEMPLATE_BYTES", "MAX_TEMPLATE_CHARS"]

#: Placeholders a template may use; the first two are required.
PLACEHOLDERS = ("question", "candidates", "format", "criteria")
#: Longest criteria text (``--criteria`` is text on the command line, not a file).
MAX_CRITERIA_CHARS = 20_000
#: Largest template file read, in bytes (1 MiB): the read stops there, whatever the file.
MAX_TEMPLATE_BYTES = 1 << 20
#: Longest template text, in characters.
MAX_TEMPLATE_CHARS = 100_000


@dataclass(frozen=True)
class JudgePrompt:
    """What replaces the default factuality prompt (both None: the default).

    Attributes:
        criteria: the user's judging criteria (plain text, 1 to 20,000 characters).
        template: a checked template text (see :func:`load_template`).

    Raises:
        ConfigError: blank or too long criteria; a template that uses ``{criteria}``
            without criteria, or criteria with a template that does not place them.
    """

    criteria: str | None = None
    template: str | None = None

    def __post_init__(self) -> None:
        if self.criteria is not None:
            if not self.criteria.strip():
                raise ConfigError("--criteria is empty; give the text the judge should judge by")
            if len(self.criteria) > MAX_CRITERIA_CHARS:
                raise ConfigError(f"--criteria has {len(self.criteria):,} characters; at most "
                                  f"{MAX_CRITERIA_CHARS:,}")
            if "\x00" in self.criteria:
                raise ConfigError("--criteria contains a NUL character")
        if self.template is not None:
            names = _placeholders(self.template, Path("<template>"))
            if "criteria" in names and self.criteria is None:
                raise ConfigError("the template places {criteria} but no --criteria was given; "
                                  "give --criteria or take {criteria} out of the template")
            if "criteria" not in names and self.criteria is not None:
                raise ConfigError("--criteria is given but the template does not place "
                                  "{criteria}; add it where the judge should read them")

    @property
    def is_default(self) -> bool:
        return self.criteria is None and self.template is None

    def params(self) -> dict[str, str]:
        """The fields that are set, for a protocol's params (none: the default prompt, so
        params of runs written before criteria existed are unchanged)."""
        return {name: value for name, value in (("criteria", self.criteria),
                                                ("template", self.template))
                if value is not None}

    def render(self, *, question: str, candidates: str, answer_format: str,
               default: str) -> str:
        """The user message: the template filled in, or ``default`` (our layout, with the
        criteria, if any, already placed by the caller) when there is no template."""
        if self.template is None:
            return default
        text = self.template.format(question=question, candidates=candidates,
                                    format=answer_format, criteria=self.criteria or "")
        if "format" not in _placeholders(self.template, Path("<template>")):
            text = f"{text.rstrip()}\n\n{answer_format}"
        return text


def _placeholders(text: str, path: Path) -> set[str]:
    """The placeholder names in ``text``; DataError (file, line) on anything not allowed."""
    names: list[str] = []
    line = 1
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:  # a lone { or }
        raise DataError(path, f"bad template: {exc}; write {{{{ and }}}} for literal "
                        f"braces") from None
    for literal, name, spec, conversion in parsed:
        line += literal.count("\n")
        if name is None:
            continue
        if name not in PLACEHOLDERS or spec or conversion:
            shown = "{" + name + (f"!{conversion}" if conversion else "") + \
                (f":{spec}" if spec else "") + "}"
            raise DataError(path, f"unknown placeholder {shown!r}; a template places "
                            f"{{question}} and {{candidates}} once each, optionally {{format}} "
                            f"and {{criteria}} (write {{{{ and }}}} for literal braces)",
                            line=line)
        names.append(name)
    for required in ("question", "candidates"):
        if names.count(required) != 1:
            raise DataError(path, f"the template must place {{{required}}} exactly once, it "
                            f"does {names.count(required)} times")
    if names.count("format") > 1:
        raise DataError(path, "the template places {format} more than once")
    return set(names)


def load_template(path: str | Path, *, criteria: str | None = None) -> str:
    """Read and check a template file (a regular file of at most :data:`MAX_TEMPLATE_BYTES`
    bytes, UTF-8 text of at most :data:`MAX_TEMPLATE_CHARS` characters; line ends read as
    ``\\n``), and that it places ``{criteria}`` exactly when ``criteria`` are given.

    Raises:
        DataError: a missing or unreadable file, not a regular file (a folder, device or
            FIFO: refused without reading), larger than the limit (naming its size), not
            UTF-8, too long, an unknown placeholder (with its line), ``{question}`` or
            ``{candidates}`` missing or repeated, ``{criteria}`` without criteria or criteria
            without ``{criteria}``.
    """
    path = Path(path)
    raw = read_bounded(path, MAX_TEMPLATE_BYTES, "template")
    try:
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"template is not UTF-8 text ({exc.reason} at byte "
                        f"{exc.start})") from None
    if len(text) > MAX_TEMPLATE_CHARS:
        raise DataError(path, f"template has {len(text):,} characters; at most "
                        f"{MAX_TEMPLATE_CHARS:,}")
    if "\x00" in text:
        raise DataError(path, "template contains a NUL character")
    names = _placeholders(text, path)
    if "criteria" in names and criteria is None:
        raise DataError(path, "the template places {criteria} but no --criteria was given")
    if "criteria" not in names and criteria is not None:
        raise DataError(path, "--criteria is given but the template does not place "
                        "{criteria}; add it where the judge should read them")
    return text
