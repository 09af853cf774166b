"""The version of jurybox: one definition, imported by the modules that record or print it
(run.json, reports, ``jurybox --version``) without importing the ``jurybox`` package."""

__all__ = ["__version__"]

__version__ = "0.1.0"
