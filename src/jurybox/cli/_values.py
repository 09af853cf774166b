"""Parsers of option values shared by several commands: fault rates, bias presets, C_i
weights (each error a ConfigError naming the option)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..protocols import Weights
    from ..sim import Faults, SimConfig

__all__ = ["check_bias", "parse_faults", "parse_weights", "sim_options"]


def parse_faults(text: str, option: str = "--sim-faults") -> Faults:
    """``rate_429=0.05,rate_malformed=0.02`` -> Faults (ConfigError on a bad entry)."""
    import pydantic

    from ..sim import Faults

    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in Faults.model_fields:
            raise ConfigError(f"{option} entry {part!r} must be NAME=VALUE with NAME in "
                              f"{', '.join(sorted(Faults.model_fields))}")
        if name in values:
            raise ConfigError(f"{option} sets {name} more than once ({text!r}); give each "
                              f"fault once")
        try:
            values[name] = float(value)
        except ValueError:
            raise ConfigError(f"{option} entry {part!r}: {value!r} is not a number") from None
    try:
        return Faults(**values)
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{e['loc'][0]}: {e['msg']}" if e["loc"] else e["msg"]
                             for e in exc.errors())
        raise ConfigError(f"{option}: {problems}") from None


def check_bias(bias: str, option: str) -> str:
    """The bias preset, or ConfigError naming the option."""
    from ..sim import BIAS_PRESETS

    if bias not in BIAS_PRESETS:
        raise ConfigError(f"{option} must be one of {', '.join(sorted(BIAS_PRESETS))}, got "
                          f"{bias!r}")
    return bias


def sim_options(bias: str, latency_ms: float, faults: str, seed: int) -> SimConfig:
    """The simulated judge's settings from the ``--sim-*`` options (ConfigError naming the
    option on a bad bias or fault entry)."""
    from ..sim import SimConfig

    return SimConfig(bias=check_bias(bias, "--sim-bias"), latency_ms=latency_ms,
                     faults=parse_faults(faults), seed=seed)


def parse_weights(text: str) -> Weights:
    """``0.5,0.25,0.2,0.05`` -> Weights (mean, borda, vote, uncertainty)."""
    from ..protocols import Weights

    parts = text.split(",")
    try:
        if len(parts) != 4 or not all(p.strip() for p in parts):
            raise ValueError
        return Weights(*map(float, parts))
    except ValueError:
        raise ConfigError(f"--weights needs 4 finite numbers >= 0 with a positive sum "
                          f"(mean,borda,vote,uncertainty), got {text!r}") from None
