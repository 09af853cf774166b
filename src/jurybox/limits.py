"""Upper bounds of the settings that could exhaust memory or time, in one light module (the
command line shows them in ``--help`` without importing the protocols or the engine). Each is
checked where its setting is used (:class:`~jurybox.run.RunOptions`,
:class:`~jurybox.runner.RetryPolicy`, :func:`~jurybox.protocols.permutation_set`, the rubric
judge) and by the CLI's option ranges.
"""

__all__ = ["DEFAULT_MAX_ANSWER_CHARS", "MAX_ANSWER_CHARS", "MAX_ATTEMPTS", "MAX_CONCURRENCY",
           "MAX_K", "MAX_MAX_TOKENS", "MAX_SEED",
           "MIN_UNITS_FOR_CI",
           "MAX_SEEDS", "MAX_TEMPERATURE", "MAX_TIMEOUT_S", "MAX_WINDOW", "sampling_problem",
           "temperature_problem"]

#: Fewest units (items of a jury's alpha, raters of a personalize mean) a bootstrap CI is
#: given for: resampling 1-4 values gives a point or a few values, not an interval
#: (``0.86 [0.86, 0.86]``); with fewer the CI is NaN and the terminal says so.
MIN_UNITS_FOR_CI = 5

#: Most orders (K) PCF may ask per item. Consensus over K orders settles well before this
#: (the paper uses K <= 10); the bound keeps a mistyped K (10**8) from building orders and
#: prompts until memory runs out. An item of n candidates has at most n! orders besides.
MAX_K = 1000
#: Most seeds (predictions per unit and dimension). The paper votes over 3; each seed is a
#: call per unit and dimension, so a mistyped 10**9 would plan calls until memory ran out.
MAX_SEEDS = 100
#: Most model calls in flight at once. Each unit in flight is a task holding its item and
#: prompts; a billion of them filled 2.7 GB before the first call. No endpoint serves one
#: client more than a few hundred calls at once.
MAX_CONCURRENCY = 1024
#: Most units being judged at once (``window``), for the same reason.
MAX_WINDOW = 1024
#: Longest per-request timeout, seconds (an hour): longer only hangs a run on an endpoint
#: that stopped answering.
MAX_TIMEOUT_S = 3600.0
#: Most attempts per call. With the default backoff (waits capped at 30 s) 100 attempts can
#: already hold one call for about 50 minutes; more only keeps a dead endpoint's run from
#: ever ending (and 2**attempt overflows a float past ~1000).
MAX_ATTEMPTS = 100
#: Highest sampling temperature. OpenAI's API takes 0-2 and Anthropic's 0-1; local servers
#: take more, but past 2 a judge's answers are noise, and 1e308 is a typing slip.
MAX_TEMPERATURE = 2.0


def temperature_problem(value: float) -> str | None:
    """Why ``value`` cannot be a judge's temperature (None when it can).

    >>> temperature_problem(0.7) is None, temperature_problem(1e308)
    (True, '--temperature must be a number from 0 to 2, got 1e+308')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 <= value <= MAX_TEMPERATURE:
        return f"--temperature must be a number from 0 to {MAX_TEMPERATURE:g}, got {value!r}"
    return None
#: Largest run seed: 2**32 - 1, what every endpoint takes as a decoding seed (llama.cpp's is
#: 32-bit; larger numbers were sent as written, past int64).
MAX_SEED = 2 ** 32 - 1
#: The default answer budget, characters: a judge's answer longer than this is a parse failure
#: saying so, unread (about 250,000 tokens, far above any judge's ``max_tokens``; the most
#: hostile shapes of this length parse in about a second: ``benchmarks/hostile_answers.py``).
DEFAULT_MAX_ANSWER_CHARS = 1_000_000
#: The largest answer budget (``--max-answer-chars``), characters: 32 MiB. Parsing stays
#: linear, but the most hostile 5 MB answers took up to 3 s to read on one core, and a 30 MB
#: answer about 30 s (measured with the machine loaded), in a worker thread.
MAX_ANSWER_CHARS = 32 * 2 ** 20
#: Largest completion budget, tokens: above any model's output limit.
MAX_MAX_TOKENS = 1_000_000


def sampling_problem(*, seed: int, temperature: float, max_tokens: int | None) -> str | None:
    """Why a run's seed, temperature or completion budget cannot be sent (None when they
    can): the checks every judging command makes before any call.

    >>> sampling_problem(seed=10**30, temperature=0.0, max_tokens=None)
    '--seed must be 0 to 4,294,967,295, got 1000000000000000000000000000000'
    >>> sampling_problem(seed=1, temperature=0.0, max_tokens=0)
    '--max-tokens must be 1 to 1,000,000, got 0'
    """
    if not 0 <= seed <= MAX_SEED:
        return f"--seed must be 0 to {MAX_SEED:,}, got {seed}"
    if problem := temperature_problem(temperature):
        return problem
    if max_tokens is not None and not 1 <= max_tokens <= MAX_MAX_TOKENS:
        return f"--max-tokens must be 1 to {MAX_MAX_TOKENS:,}, got {max_tokens}"
    return None
