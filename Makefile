# Two commands on a fresh machine: `make demo` and `make test`. Each creates .venv if needed.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: demo test lint typecheck check bench-throughput bench-krippendorff bench-scale clean

$(BIN)/jurybox: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/jurybox
	$(BIN)/jurybox demo

test: $(BIN)/jurybox
	$(BIN)/python -m pytest -q

lint: $(BIN)/jurybox
	$(BIN)/ruff check src tests benchmarks

typecheck: $(BIN)/jurybox
	$(BIN)/mypy

# what CI runs: lint, types, tests
check: lint typecheck test

bench-throughput: $(BIN)/jurybox
	$(BIN)/python benchmarks/throughput.py

bench-krippendorff: $(BIN)/jurybox
	$(BIN)/python benchmarks/krippendorff_speed.py

bench-scale: $(BIN)/jurybox
	$(BIN)/python benchmarks/scale.py

clean:
	rm -rf $(VENV) runs
