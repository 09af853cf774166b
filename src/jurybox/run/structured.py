"""Structured outputs for a run: which mode the requests ask for, and the fallback.

``--structured`` (``JURYBOX_STRUCTURED``):

- ``off``: free text; answers are parsed from whatever the judge writes.
- ``json-schema``: every call that has an answer schema asks the server to follow it.
- ``json-object``: ask for any JSON object (servers without schema support).
- ``auto`` (the default): ``json-schema`` for real endpoints and ``off`` for the simulated
  judge (which reads jurybox's prompts and needs no grammar; earlier simulated runs keep their
  cache keys). When a server refuses the field, the run falls back once: json-schema ->
  json-object -> off, says so in a warning and records it in run.json.

A schema is help, never trust: every answer is parsed and validated whatever the server
enforced. The mode and the schema are part of the cache key.
"""

from __future__ import annotations

import logging
from typing import Any

from ..cache import canonical_json
from ..providers import AnswerFormat, ChatRequest, FormatMode
from .options import STRUCTURED_MODES, StructuredMode

__all__ = ["AnswerFormats", "StructuredMode", "STRUCTURED_MODES"]

log = logging.getLogger(__name__)

_LOWER: dict[FormatMode, FormatMode | None] = {"json-schema": "json-object",
                                               "json-object": None}


class AnswerFormats:
    """The structured-output mode of one run, shared by all its calls.

    Args:
        requested: the ``--structured`` value.
        simulated: the endpoint is the simulated judge (``auto`` means off there).
    """

    def __init__(self, requested: StructuredMode, *, simulated: bool) -> None:
        self.requested = requested
        self.mode: FormatMode | None = (
            None if requested == "off" or (requested == "auto" and simulated) else
            "json-schema" if requested == "auto" else requested)
        self.fallbacks: list[dict[str, Any]] = []

    def apply(self, request: ChatRequest, schema: dict[str, Any] | None) -> ChatRequest:
        """``request`` asking for ``schema`` in the current mode (unchanged when the call has
        no schema or the mode is off)."""
        if schema is None or self.mode is None:
            return request
        return request.model_copy(update={"answer_format": AnswerFormat(
            mode=self.mode, schema_text=canonical_json(schema))})

    def refused(self, request: ChatRequest) -> ChatRequest | None:
        """The server refused ``request``'s answer format: the request to send instead (the
        next lower mode for the rest of the run, first time only), or None outside ``auto``
        (then the refusal is an API failure)."""
        fmt = request.answer_format
        if self.requested != "auto" or fmt is None:
            return None
        if self.mode == fmt.mode:  # the first refusal at this mode: step down for the run
            self.mode = _LOWER[fmt.mode]
            self.fallbacks.append({"from": fmt.mode, "to": self.mode or "off"})
            log.warning("the endpoint refused structured output (%s); the rest of this run "
                        "asks for %s", fmt.mode, self.mode or "free text (off)")
        if self.mode is None:
            return request.model_copy(update={"answer_format": None})
        return request.model_copy(update={"answer_format": fmt.model_copy(
            update={"mode": self.mode})})

    def state(self) -> dict[str, Any]:
        """For run.json: what was asked, what is in effect, and the fallbacks taken."""
        return {"requested": self.requested, "mode": self.mode or "off",
                "fallbacks": list(self.fallbacks)}
