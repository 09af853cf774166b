"""The jury file: which judges sit on the panel, with what weight and run options.

A jury file is YAML (JSON is YAML too)::

    judges:
      - model: openai/gpt-4o-mini
        weight: 2
        concurrency: 8
      - model: anthropic/claude-3-5-haiku-latest
      - name: sim-recency          # two simulated judges need names to tell them apart
        model: sim
        sim: {bias: recency, seed: 3}
      - name: sim-primacy
        model: sim
        sim: {bias: primacy, seed: 4}

Each judge: ``model`` (required), ``name`` (default: the model; names the judge's folder
and its rows in every table), ``base_url``, ``weight`` (a finite number >= 0, default 1),
run options ``concurrency``, ``attempts``, ``timeout`` (default: the command's),
``price_in``/``price_out`` (USD per million tokens; default: the bundled list price),
``price_batch`` (the batch rate, a share of the online price; default: the bundled rate of
the judge's provider), and
for ``model: sim`` the simulated judge's settings under ``sim`` (any
:class:`~jurybox.sim.SimConfig` field: ``bias``, ``seed``, ``faults``, ...). Unknown keys are
refused, naming the file, line and field; so are a name or a judge given twice (the same
model, base URL and sim settings), a bad weight and all weights 0.

The short form ``--model a,b,c`` is a jury of those models, weight 1 each.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import ConfigError, DataError
from ..limits import MAX_ATTEMPTS, MAX_CONCURRENCY, MAX_TIMEOUT_S
from ..sim import SimConfig

__all__ = ["Juror", "Jury", "MAX_JURY_BYTES", "jury_from_models", "jury_of", "load_jury"]

#: A jury file larger than this is refused (it lists judges, not data).
MAX_JURY_BYTES = 1_000_000


class Juror(BaseModel):
    """One judge of a jury.

    Attributes:
        model: the judge's spec (``provider/model``, ``local``, ``sim``).
        name: how tables and folders name it (default: ``model``); letters, digits and
            ``._-/:@+`` only, 1-80 characters.
        base_url: its endpoint (None: the provider's default).
        weight: its vote's weight, a finite number >= 0 (0: judged and reported, never moves
            the jury).
        concurrency, attempts, timeout: run options for this judge (None: the command's).
        price_in, price_out: USD per million tokens (None: the bundled price, if any).
        price_batch: the batch rate, a share of the online price from 0 to 1 (None: the
            bundled rate of the judge's provider, if it has a batch API).
        sim: the simulated judge's settings (``model: sim`` only; None: the command's).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    model: str = Field(min_length=1)
    name: str | None = None
    base_url: str | None = None
    weight: float = 1.0
    concurrency: int | None = Field(None, ge=1, le=MAX_CONCURRENCY)
    attempts: int | None = Field(None, ge=1, le=MAX_ATTEMPTS)
    timeout: float | None = Field(None, gt=0, le=MAX_TIMEOUT_S)
    price_in: float | None = Field(None, ge=0, allow_inf_nan=False)
    price_out: float | None = Field(None, ge=0, allow_inf_nan=False)
    price_batch: float | None = Field(None, ge=0, le=1, allow_inf_nan=False)
    sim: SimConfig | None = None

    @field_validator("weight", mode="before")
    @classmethod
    def _finite_weight(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value < 0:
            raise ValueError(f"weight must be a finite number >= 0, got {value!r}")
        return value

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z0-9._\-/:@+]{1,80}", value):
            raise ValueError(f"name must be 1-80 letters, digits or ._-/:@+, got {value!r:.90}")
        return value

    @property
    def label(self) -> str:
        """The judge's name (``name``, else ``model``)."""
        return self.name or self.model

    @property
    def folder(self) -> str:
        """Its sub-folder under the jury's run directory: ``judges/<label, / as _>``."""
        return re.sub(r"[^A-Za-z0-9._\-+@]", "_", self.label)

    def identity(self) -> tuple[str, str | None, Any]:
        """What makes two judges the same judge: model, base URL, sim settings."""
        return (self.model, self.base_url,
                None if self.sim is None else self.sim.model_dump_json())

    def public(self) -> dict[str, Any]:
        """As recorded in jury.json and summary.json (credentials in a base URL hidden)."""
        from ..providers import redact_url

        d = self.model_dump(mode="json", exclude_none=True)
        d["name"] = self.label
        if self.base_url is not None:
            d["base_url"] = redact_url(self.base_url)
        return d


class Jury(BaseModel):
    """A panel of judges (at least one), checked: unique names and judges, weights finite
    >= 0 and not all 0."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    judges: tuple[Juror, ...] = Field(min_length=1)

    @property
    def weights(self) -> list[float]:
        """One weight per judge, in the file's order."""
        return [j.weight for j in self.judges]

    @property
    def names(self) -> list[str]:
        """The judges' names, in the file's order."""
        return [j.label for j in self.judges]


def _check(jury: Jury, where: Any) -> Jury:
    """Names, folders and identities unique; weights not all 0. ``where(index, field)`` ->
    (line, field) for the message."""
    seen_names: dict[str, int] = {}
    seen_folders: dict[str, int] = {}
    seen: dict[Any, int] = {}
    for i, j in enumerate(jury.judges):
        if j.label in seen_names or j.folder in seen_folders:
            first = seen_names.get(j.label, seen_folders.get(j.folder, 0))
            raise where(i, "name", f"judges {first + 1} and {i + 1} are both named "
                        f"{j.label!r}: give each judge a distinct name")
        if j.identity() in seen:
            raise where(i, "model", f"judge {i + 1} ({j.label!r}) repeats judge "
                        f"{seen[j.identity()] + 1} (same model, base_url and sim settings): "
                        f"a judge sits on a jury once (give it a weight instead)")
        seen_names[j.label], seen_folders[j.folder], seen[j.identity()] = i, i, i
    if not any(jury.weights):
        raise where(None, "weight", "the judges' weights are all 0: at least one judge must "
                    "count")
    return jury


def _config_error(index: int | None, field: str, message: str) -> ConfigError:
    return ConfigError(f"jury: {message}")


def jury_of(judges: Iterable[Juror | str | dict[str, Any]]) -> Jury:
    """A jury from Python values: model specs (``"sim"``, ``"openai/gpt-4o-mini"``), dicts
    with a jury file's judge keys, or :class:`Juror` values.

    Raises:
        ConfigError: an unknown key, a bad value, a repeated judge, all weights 0.
    """
    if isinstance(judges, (str, dict)):
        raise ConfigError("jury must be a list of judges (model specs, dicts or Juror), got "
                          f"one {type(judges).__name__}; give [judge, ...]")
    rows: list[Juror] = []
    try:
        for i, j in enumerate(judges):
            if isinstance(j, Juror):
                rows.append(j)
            elif isinstance(j, str):
                rows.append(Juror(model=j))
            elif isinstance(j, dict):
                rows.append(Juror.model_validate(j))
            else:
                raise ConfigError(f"jury: judge {i + 1} must be a model spec, a dict or a "
                                  f"Juror, got {type(j).__name__}")
        jury = Jury(judges=tuple(rows))
    except ValidationError as exc:
        e = exc.errors()[0]
        raise ConfigError(f"jury: judge {len(rows) + 1}: {'.'.join(map(str, e['loc']))}: "
                          f"{e['msg'].removeprefix('Value error, ')}") from None
    except TypeError:
        raise ConfigError("jury must be a list of judges") from None
    return _check(jury, _config_error)


def jury_from_models(text: str) -> Jury | None:
    """``--model a,b,c`` -> a jury of those models (weight 1 each), or None for one model.

    Raises:
        ConfigError: an empty entry (``a,,b``) or a model given twice.
    """
    if "," not in text:
        return None
    models = [m.strip() for m in text.split(",")]
    if not all(models):
        raise ConfigError(f"--model {text!r} has an empty entry: give judges as a,b,c")
    return jury_of(models)


def load_jury(path: str | Path) -> Jury:
    """Read and check a jury file (see the module docstring).

    Raises:
        DataError: a missing, unreadable, oversized or non-UTF-8 file, bad YAML (a key
            given twice included), or an invalid jury (unknown key, bad value, repeated
            judge, all weights 0), naming the file, the line and the field.
    """
    from ..yamlfile import node_line, read_yaml

    path = Path(path)
    data, node = read_yaml(path, MAX_JURY_BYTES, "jury")
    if not isinstance(data, dict) or "judges" not in data:
        raise DataError(path, "a jury file is a mapping with a 'judges' list (see jurybox "
                        "judge --help)", line=1)
    if not isinstance(data["judges"], list):
        raise DataError(path, f"'judges' must be a list of judges, got "
                        f"{type(data['judges']).__name__}", line=node_line(node, ("judges",)),
                        field="judges")
    try:
        jury = Jury.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = f"unknown key {str(loc[-1])!r}" + (
                f" (a judge takes {', '.join(sorted(Juror.model_fields))})"
                if len(loc) == 3 else "")
        elif first["type"] != "value_error" and "input" in first:
            message += f", got {first['input']!r:.80}"
        raise DataError(path, message, line=node_line(node, loc),
                        field=".".join(map(str, loc)) or None) from None

    def where(index: int | None, field: str, message: str) -> DataError:
        loc: tuple[Any, ...] = ("judges",) if index is None else ("judges", index, field)
        return DataError(path, message, line=node_line(node, loc) or node_line(node, loc[:2]),
                         field=".".join(map(str, loc)))

    return _check(jury, where)
