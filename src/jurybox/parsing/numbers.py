"""Numbers as judges write them: JSON literals no float holds (:class:`BadNumber`), values
nested too deep to decode (:class:`TooDeep`), numeric fields (:func:`number_field`) and the
short quotes of what a judge wrote that error messages use (:func:`shorten`).

A JSON number literal no float can hold (``1e999999``, 5,000 digits) and the
``NaN``/``Infinity`` literals :mod:`json` accepts decode as :class:`BadNumber`, which
:func:`number_field` refuses; they never raise (Python refuses ``int()`` of more than 4,300
digits) and never read as a value.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["BadNumber", "MAX_DEPTH", "TooDeep", "digits_hint", "number_field", "read_float",
           "read_int",
           "shorten"]

#: The longest JSON integer literal read as an int; longer ones are read as floats.
_INT_DIGITS = 20
#: The deepest nesting of objects and arrays decoded (a judgment needs 3); a value nested
#: deeper is read as :class:`TooDeep`, never decoded (:mod:`json` would recurse once per level:
#: :mod:`jurybox.parsing.scan`).
MAX_DEPTH = 32
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FRACTION = re.compile(r"([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))[ \t]*(?:/|out[ \t]+of)[ \t]*"
                       r"([0-9]+(?:\.[0-9]+)?)", re.I)
_ASCII_SPACE = " \t\r\n"


def shorten(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to about ``limit`` characters (``'999…' (5000 characters)``), for
    error messages that quote what a judge wrote (a re-ask and calls.jsonl stay short)."""
    if isinstance(value, (BadNumber, TooDeep)):
        return str(value)
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    text = repr(value) if not isinstance(value, (list, dict)) or len(value) < 50 else (
        f"a {type(value).__name__} of {len(value):,} entries")
    return text if len(text) <= limit else f"{text[:limit]}…"


@dataclass(frozen=True)
class BadNumber:
    """A JSON number literal that is not a finite number a float can hold: ``NaN``,
    ``Infinity``, ``1e999999``, an integer of hundreds of digits.

    Attributes:
        literal: what the judge wrote (its first 20 characters when longer).
        length: the literal's length in characters.
    """

    literal: str
    length: int

    @classmethod
    def of(cls, literal: str) -> BadNumber:
        return cls(literal[:20], len(literal))

    def __str__(self) -> str:
        return self.literal if self.length <= 20 else (
            f"{self.literal}… (a number of {self.length:,} characters)")


@dataclass(frozen=True)
class TooDeep:
    """What a JSON value nested deeper than :data:`MAX_DEPTH` levels reads as (it is never
    decoded): a score written as one fails naming it; a rationale holding one is kept as
    text."""

    def __str__(self) -> str:
        return f"a value nested more than {MAX_DEPTH} levels deep"


def read_int(literal: str) -> int | float | BadNumber:
    if len(literal) <= _INT_DIGITS:
        return int(literal)
    return read_float(literal)  # float() has no digit limit; int() stops at 4,300


def read_float(literal: str) -> float | BadNumber:
    value = float(literal)
    return value if math.isfinite(value) else BadNumber.of(literal)


def digits_hint(value: object) -> str:
    """``" (only ASCII decimal digits 0-9 are read)"`` when ``value`` is text with an
    underscore or a non-ASCII digit ("1_0", "１０"), else ``""``: the hint for an error."""
    if isinstance(value, str) and ("_" in value or any(
            not c.isascii() and c.isnumeric() for c in value)):
        return " (only ASCII decimal digits 0-9 are read)"
    return ""


def number_field(name: str, value: object, *, scale_max: float | None = None) -> float:
    """A number a judge wrote: a JSON number, or a numeric string in ASCII decimal digits
    ("85", " 72.5 ", "90%"): no underscores ("1_0"), no other digits ("１０"), no exponent,
    no ``nan``/``inf``.

    With ``scale_max``, a fraction out of that maximum reads as its numerator ("85/100" and
    "85 out of 100" are 85 when ``scale_max`` is 100); a fraction out of anything else
    ("8/10" on a scale up to 100) is rejected, never rescaled: the judge used another scale.
    Range checks are the caller's.

    Raises:
        ParseError: a boolean, None, a list or object, other text, a :class:`BadNumber`
            (NaN, infinite, too many digits), or a fraction (out of a number other than
            ``scale_max``, or any fraction without one). The message names ``name`` and
            quotes the value (shortened).
    """
    from ..errors import ParseError

    written = value
    if isinstance(value, str):
        written = value.strip(_ASCII_SPACE)
        if (fraction := _FRACTION.fullmatch(written)) is not None:
            if scale_max is None or float(fraction.group(2)) != scale_max:
                out_of = "" if scale_max is None else f" (a fraction only out of {scale_max:g})"
                raise ParseError(f"{name} must be a number{out_of}, got {shorten(value)}")
            written = fraction.group(1)
        elif written.endswith("%"):
            written = written[:-1].rstrip(_ASCII_SPACE)
        if not _DECIMAL.fullmatch(written):
            raise ParseError(f"{name} must be a number, got {shorten(value)}"
                             f"{digits_hint(value)}")
        written = float(written)
    if isinstance(written, bool) or not isinstance(written, (int, float)) or not math.isfinite(
            written):
        raise ParseError(f"{name} must be a finite number, got {shorten(value)}"
                         if isinstance(value, BadNumber) or isinstance(written, float)
                         else f"{name} must be a number, got {shorten(value)}")
    return float(written)
