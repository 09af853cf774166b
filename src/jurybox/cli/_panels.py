"""The ``--help`` panel names, their order and the environment epilog: plain strings, imported
by ``jurybox --help`` itself (nothing here imports the library)."""

from __future__ import annotations

__all__ = ["API_KEY_VARIABLES", "ENV_EPILOG", "PANEL_BATCH", "PANEL_COST", "PANEL_DATA",
           "PANEL_JUDGE", "PANEL_ORDER", "PANEL_OUTPUT", "PANEL_PROTOCOL", "PANEL_RUN",
           "PANEL_SIM", "PANEL_SIM_BATCH", "PANEL_START", "PANEL_STATS", "envvar_by_rule"]

#: The panels ``--help`` groups options in, the same names in every command (typer's
#: ``rich_help_panel``); ``--help`` itself stays in typer's first panel, "Options".
PANEL_START = "Start here"
PANEL_DATA = "What to judge"
PANEL_PROTOCOL = "Protocol"
PANEL_STATS = "Statistics"
PANEL_JUDGE = "Judge and endpoint"
PANEL_RUN = "Run"
PANEL_OUTPUT = "Output"
PANEL_COST = "Cost"
PANEL_SIM = "Simulated judge"
PANEL_BATCH = "Batch"
PANEL_SIM_BATCH = "Simulated batches"
PANEL_ORDER = (PANEL_START, PANEL_DATA, PANEL_PROTOCOL, PANEL_STATS, PANEL_JUDGE, PANEL_RUN,
               PANEL_OUTPUT, PANEL_COST, PANEL_BATCH, PANEL_SIM, PANEL_SIM_BATCH)

#: API key variables, as ``providers.spec.PROVIDERS`` reads them (a test keeps them equal).
API_KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "VLLM_API_KEY")

#: The key environment variables, shown under ``jurybox --help`` and the judging commands'.
ENV_EPILOG = (
    "**Environment**: every option has a `JURYBOX_` variable named after it (`--sim-latency-ms`: "
    "`JURYBOX_SIM_LATENCY_MS`); one named otherwise is shown with its option. API keys: "
    + ", ".join(f"`{v}`" for v in API_KEY_VARIABLES) + " (each provider's own), or "
    "`JURYBOX_API_KEY` for any provider. `JURYBOX_MODEL`: the judge; `JURYBOX_BASE_URL`: its "
    "endpoint; `JURYBOX_CACHE`: the response cache (default "
    "`~/.cache/jurybox/cache.sqlite`, under `$XDG_CACHE_HOME` when set); `JURYBOX_OUT`: the "
    "run directory; `JURYBOX_LOG_LEVEL`: log level (WARNING); `JURYBOX_PROGRESS=1`: draw the "
    "progress bar when stderr is not a terminal.")


def envvar_by_rule(option: str) -> str:
    """The environment variable an option has by the rule ``--help`` states once:
    ``--sim-latency-ms`` -> ``JURYBOX_SIM_LATENCY_MS``."""
    return "JURYBOX_" + option.lstrip("-").replace("-", "_").upper()
