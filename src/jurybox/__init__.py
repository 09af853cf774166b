"""jurybox: robust, reproducible LLM-as-a-judge evaluation."""

__version__ = "0.1.0"
