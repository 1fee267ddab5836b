# ziosim: `make run` sets up .venv and runs the bundled default scenario;
# `make test` sets up and runs every test (Rust and Python). .ci/run calls `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
SCENARIO ?= scenarios/default.toml

.PHONY: setup run test test-rust test-python bench clean

$(VENV)/.deps: pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install --quiet --disable-pip-version-check 'maturin>=1.5,<2' 'typer>=0.9' 'rich>=13' 'pyarrow>=14' 'pytest>=7' 'jsonschema>=4'
	touch $@

# Build the Rust core in release mode and install the package into .venv (editable).
setup: $(VENV)/.deps
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet

run: setup
	$(VENV)/bin/ziosim run $(SCENARIO)

test-rust:
	cargo test --release --workspace --exclude ziosim-py

test-python: setup
	$(PY) -m pytest -q tests/python

test: test-rust test-python

# Fixed scenarios, release mode: leaf I/Os/s, events/s, peak RSS (bench/README.md).
# BENCH_ARGS=--quick for the short versions, or scenario name prefixes.
bench:
	bench/run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) target out
