"""Configuration of the simulated judge: latent quality, position bias, noise, faults."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["SimConfig", "Faults", "BIAS_PRESETS", "bias_vector"]

#: Named position-bias vectors, points added to the score of the candidate shown at each
#: position (position 0 first); positions past the end reuse the last value.
BIAS_PRESETS: dict[str, tuple[float, ...]] = {
    "none": (0.0,),
    "primacy": (14.0, 4.0, 0.0, -2.0),
    "recency": (-2.0, 0.0, 4.0, 14.0),
}


def bias_vector(bias: str | tuple[float, ...] | list[float], n: int) -> tuple[float, ...]:
    """The bias added at each of ``n`` positions (a preset name or explicit values).

    For ``recency`` the preset is aligned to the last position.
    """
    if isinstance(bias, str):
        values = BIAS_PRESETS[bias]
        if bias == "recency":
            values = (values[0],) * max(0, n - len(values)) + values[-n:]
    else:
        values = tuple(bias)
    return tuple(values[min(i, len(values) - 1)] for i in range(n)) if values else (0.0,) * n


class Faults(BaseModel):
    """Fault injection, decided per (request, attempt) from a hash, so runs are repeatable.

    Rates are probabilities in [0, 1] per HTTP attempt; ``first_*`` counts make every distinct
    request fail its first N attempts that way (for retry tests). The HTTP faults (429, 500,
    slow) are one roll, and so are the answer faults (malformed, truncated, refusal): each
    group's rates must sum to at most 1.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    rate_429: float = Field(0.0, ge=0, le=1)
    rate_500: float = Field(0.0, ge=0, le=1)
    rate_slow: float = Field(0.0, ge=0, le=1)
    rate_malformed: float = Field(0.0, ge=0, le=1)
    rate_truncated: float = Field(0.0, ge=0, le=1)
    rate_refusal: float = Field(0.0, ge=0, le=1)
    first_429: int = Field(0, ge=0)
    first_500: int = Field(0, ge=0)
    retry_after_s: float = Field(0.0, ge=0, description="Retry-After sent with 429, seconds")
    slow_s: float = Field(120.0, ge=0, le=3600,
                          description="how long a slow answer takes, seconds")

    @model_validator(mode="after")
    def _one_roll_each(self) -> Faults:
        http = self.rate_429 + self.rate_500 + self.rate_slow
        answer = self.rate_malformed + self.rate_truncated + self.rate_refusal
        for group, total in (("rate_429 + rate_500 + rate_slow", http),
                             ("rate_malformed + rate_truncated + rate_refusal", answer)):
            if total > 1 + 1e-12:
                raise ValueError(f"{group} must be at most 1 (one roll), got {total:g}")
        return self


class SimConfig(BaseModel):
    """How the simulated judge behaves.

    Attributes:
        seed: fixes the per-candidate noise (the judge's stable misjudgments).
        gold_quality / other_quality: latent score of correct / incorrect candidates, 0-100.
        candidate_noise: sd of the fixed per-candidate offset (points).
        call_noise: sd of the per-call noise, seeded by the request (points).
        bias: position-bias preset (``none``, ``primacy``, ``recency``) or explicit vector.
        length_bias: points added for length: a candidate gets ``length_bias * (len -
            shortest) / (longest - shortest)`` (characters, among the candidates of the
            prompt), so the longest gets all of it and the shortest none; 0 (default) plays a
            judge without length preference, the bias AlpacaEval's length control corrects
            (Dubois et al. 2024, arXiv 2404.04475). Left out of cache keys and run.json at 0.
        style: ``plain`` (bare JSON) or ``mixed`` (also fenced JSON, ``<think>`` blocks,
            prose around JSON and scores as strings, as real judges write).
        tie_margin: pairwise prompts answer a tie when the two scores differ by less.
        keyed_bias_scale / keyed_noise_scale: the keyed judge (which solves the question
            first) keeps this share of the position bias and call noise: the simulation's
            assumption that solving first makes a judge less swayed by order and noise.
        latency_ms / latency_jitter_ms: answer delay, milliseconds.
        faults: fault injection.
        structured: what it does with a request's ``response_format``: ``honour`` (answer
            bare JSON in the asked shape, as a grammar-constrained server does), ``ignore``
            (answer in its usual styles, as a server that drops the field does) or
            ``refuse`` (HTTP 400 naming the field, as a server without support does).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    seed: int = 0
    gold_quality: float = 68.0
    other_quality: float = 50.0
    candidate_noise: float = 9.0
    call_noise: float = 5.0
    bias: Literal["none", "primacy", "recency"] | tuple[float, ...] = "primacy"
    length_bias: float = Field(0.0, ge=-100, le=100, description="points for the longest")
    style: Literal["plain", "mixed"] = "mixed"
    tie_margin: float = Field(3.0, ge=0, description="pairwise: |score gap| below this is a tie")
    keyed_bias_scale: float = Field(0.3, ge=0, description="keyed judge: share of position bias")
    keyed_noise_scale: float = Field(0.5, ge=0, description="keyed judge: share of call noise")
    latency_ms: float = Field(0.0, ge=0, le=600_000)
    latency_jitter_ms: float = Field(0.0, ge=0, le=600_000)
    faults: Faults = Faults()
    structured: Literal["honour", "ignore", "refuse"] = "honour"

    def settings(self) -> dict:
        """Everything but latency, for run.json (latency changes no answer, so a run may
        resume with another)."""
        return self.model_dump(mode="json", exclude={"latency_ms", "latency_jitter_ms",
                                                     *self._unset_length()})

    def _unset_length(self) -> set[str]:
        # a judge without length preference keeps the keys and run.json it had before the
        # setting existed (so its caches and runs stay valid)
        return {"length_bias"} if self.length_bias == 0 else set()

    def identity(self) -> dict:
        """What changes successful answers (for cache keys): everything but latency and the
        HTTP-level faults (429, 500, slow), which never produce a cached answer."""
        return self.model_dump(mode="json", exclude={
            "latency_ms": True, "latency_jitter_ms": True,
            **dict.fromkeys(self._unset_length(), True),
            "faults": {"rate_429", "rate_500", "rate_slow", "first_429", "first_500",
                       "retry_after_s", "slow_s"}})
