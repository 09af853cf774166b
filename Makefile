# Two commands on a fresh machine: `make demo` and `make test`. Each creates .venv if needed.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: demo test test-ray test-real test-readme test-readme-real local lint typecheck check docs \
        docs-deps bench-throughput \
        bench-krippendorff bench-scale bench-real bench-adaptive bench-kill bench-ray clean

$(BIN)/jurybox: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/jurybox
	$(BIN)/jurybox demo

test: $(BIN)/jurybox
	$(BIN)/python -m pytest -q

# the Ray backend (--executor ray, jurybox.ray.judge_dataset): the [ray] extra (ray[data], about
# 630 MB) in its own step, then the tests marked ray on a local ray.init(num_cpus=2) (about 9 s
# to start on 2 cores); make test stays Ray-free
$(VENV)/.ray-extra: $(BIN)/jurybox pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[ray]'
	touch $@

test-ray: $(VENV)/.ray-extra
	$(BIN)/python -m pytest -q -m ray tests/ray

# the real local judge (llama.cpp + SmolLM2-135M): llama.cpp is built portably (AVX2, never
# a native build, whatever CPU builds it: GGML_NATIVE=OFF, AVX/AVX2/FMA/F16C on,
# providers/llama_build.PORTABLE_CMAKE_ARGS) into ~/.cache/jurybox/wheels the first time (10-15
# minutes on 2 cores), then installed from there; an installed native build is replaced
$(VENV)/.local-extra: $(BIN)/jurybox scripts/install_local.py
	$(BIN)/python scripts/install_local.py
	touch $@

local: $(VENV)/.local-extra

test-real: $(VENV)/.local-extra
	$(BIN)/python -m pytest -q -m real tests/real

# README.md's command blocks, run as pasted in a fresh clone of HEAD after its set-up (make demo
# there: a minute or two with pip's cache), with a new user's PATH (tests/docs/test_readme_blocks.py);
# -s prints each block and every line left out, with why. test-readme-real: the real-judge tier
# (make local and the local judge, in the clone: the llama.cpp wheel cached by make local)
test-readme: $(BIN)/jurybox
	$(BIN)/python -m pytest -q -s -m 'readme and not real' tests/docs/test_readme_blocks.py

test-readme-real: $(BIN)/jurybox
	$(BIN)/python -m pytest -q -s -m 'readme and real' tests/docs/test_readme_blocks.py

lint: $(BIN)/jurybox
	$(BIN)/ruff check src tests benchmarks scripts

typecheck: $(BIN)/jurybox
	$(BIN)/mypy

# the documentation site from docs/ and mkdocs.yml into site/ (gitignored; open site/index.html);
# --strict: a broken link, anchor or image, a docstring griffe cannot read, or a command missing
# from the generated CLI reference fails the build
$(VENV)/.docs-extra: $(BIN)/jurybox pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

docs-deps: $(VENV)/.docs-extra

docs: $(VENV)/.docs-extra
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# what CI runs: lint, types, the docs site, tests, the Ray tests, the real-judge tests, the
# README's command blocks (the real-judge tier after test-real: its llama.cpp wheel is cached)
check: lint typecheck docs test test-readme test-ray test-real test-readme-real

bench-throughput: $(BIN)/jurybox
	$(BIN)/python benchmarks/throughput.py

bench-krippendorff: $(BIN)/jurybox
	$(BIN)/python benchmarks/krippendorff_speed.py

bench-scale: $(BIN)/jurybox
	$(BIN)/python benchmarks/scale.py

bench-real: $(VENV)/.local-extra
	$(BIN)/python benchmarks/real_judge.py

# simulated judge, 5 position biases x 790 items (a few minutes); add --real for the local judge
bench-adaptive: $(BIN)/jurybox
	$(BIN)/python benchmarks/adaptive.py

# 2 Ray actors vs the local executor on one simulated endpoint, and a killed actor
bench-ray: $(VENV)/.ray-extra
	$(BIN)/python benchmarks/ray_executor.py

bench-kill: $(BIN)/jurybox
	$(BIN)/python benchmarks/kill_resume.py --trials 10 --kills 1
	$(BIN)/python benchmarks/kill_resume.py --trials 1 --kills 10 --seed 1

clean:
	rm -rf $(VENV) runs site
