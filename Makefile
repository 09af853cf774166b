# Two commands on a fresh machine: `make demo` and `make test`. Each creates .venv if needed.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: demo test lint bench-throughput bench-krippendorff clean

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
	$(BIN)/python -m pip install --quiet ruff
	$(BIN)/ruff check src tests benchmarks

bench-throughput: $(BIN)/jurybox
	$(BIN)/python benchmarks/throughput.py

bench-krippendorff: $(BIN)/jurybox
	$(BIN)/python benchmarks/krippendorff_speed.py

clean:
	rm -rf $(VENV) runs
