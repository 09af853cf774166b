"""Every package's __all__ names exist, and every public module-level name it re-exports from
its own modules is listed (httpx's test_exported_members does the same)."""

import importlib

import pytest

PACKAGES = ["jurybox", "jurybox.datasets", "jurybox.providers", "jurybox.sim", "jurybox.runner",
            "jurybox.cache", "jurybox.parsing", "jurybox.protocols", "jurybox.stats",
            "jurybox.reports", "jurybox.run", "jurybox.compare", "jurybox.agreement",
            "jurybox.personalize", "jurybox.rubrics", "jurybox.judging"]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_exact(name):
    module = importlib.import_module(name)
    exported = set(module.__all__)
    assert all(hasattr(module, n) for n in exported)
    public = {n for n, v in vars(module).items() if not n.startswith("_")
              and not isinstance(v, type(module))}
    assert public - exported == set(), f"{name} exports names missing from __all__"


@pytest.mark.parametrize("name, package", [("ajudge", "api"), ("arun_judge", "judging"),
                                           ("arun_bench", "compare"),
                                           ("arun_personalize", "personalize")])
def test_the_awaitable_forms_are_exported_from_the_root(name, package):
    import inspect

    import jurybox

    assert name in jurybox.__all__ and name in dir(jurybox)
    value = getattr(jurybox, name)
    assert value is getattr(importlib.import_module(f"jurybox.{package}"), name)
    assert inspect.iscoroutinefunction(value)
    blocking = getattr(jurybox, name[1:])  # judge, run_judge, run_bench, run_personalize
    assert list(inspect.signature(value).parameters) == \
        list(inspect.signature(blocking).parameters)  # the same arguments as the blocking form
