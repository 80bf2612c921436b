# tractor-table: one Makefile for engine, host, firmware and hardware.
# `make demo` and `make test` set everything up themselves.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?=
CARDS  ?=
HANDS  ?= 1000
SEED   ?=
JOBS   ?= 4
ADVERSARIAL ?=

.PHONY: setup test lint demo club-demo firmware hardware rules screens deploy bench wasm fuzz-rules soak-flash clean help

help:
	@echo "make setup       create .venv and install the project with its development tools"
	@echo "make demo        run the demo (sets up first)"
	@echo "make club-demo   the club server on an embedded PostgreSQL, four tables of bots uploading; prints the URL"
	@echo "                 (COMPETITION=1: a two-round event run from the director's pages on four virtual tables,"
	@echo "                 docs/competition.md; SIM=1: on simulated tables, lighter)"
	@echo "make test        lint and run the whole test suite (sets up first)"
	@echo "make lint        ruff, mypy --strict (engine, host), pyright on firmware against the rp2 stubs"
	@echo "make firmware    compile firmware/*.py with mpy-cross -march=armv6m into build/firmware"
	@echo "make hardware    regenerate firmware/hwconfig.py and hardware/wiring.svg from hardware/pinmap.toml"
	@echo "make rules       regenerate firmware/ruleopts.py (the table's rule options) from the schema, shengji.rules.OPTIONS"
	@echo "make screens     draw every display screen with the firmware's code: docs/display/*.png, docs/display.md"
	@echo "make deploy PORT=/dev/ttyACM0 [CARDS=set.bin]   copy firmware, card map and configuration to a Pico"
	@echo "make bench       run the benchmarks but the flash soak (make soak-flash); figures go to docs/performance.md"
	@echo "make wasm        install MicroPython's 32-bit webassembly port (npm ci into build/wasm; needs node and npm)"
	@echo "make fuzz-rules HANDS=N   differential fuzzing of the two rules engines"
	@echo "make fuzz-rules ADVERSARIAL=N   search N cases for the slowest checks (both engines judge each)"
	@echo "make soak-flash [CUTS=N]  power cuts at random flash operations while the table saves (figures to docs/performance.md)"

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check engine host firmware tests bench hardware
	$(BIN)/mypy engine/shengji host/tractor_table
	$(BIN)/basedpyright --project firmware/pyrightconfig.json

test: $(STAMP)
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile --durations=25

demo: $(STAMP)
	$(BIN)/tractor-table demo

club-demo: $(STAMP)
	$(BIN)/tractor-table club demo $(if $(PORT),--port $(PORT),) $(if $(COMPETITION),--competition,) $(if $(SIM),--sim,)$(if $(VIRTUAL),--virtual,)

firmware: $(STAMP)
	$(BIN)/tractor-table firmware

hardware: $(STAMP)
	$(BIN)/python -m tractor_table.hardware

rules: $(STAMP)
	$(BIN)/python -m tractor_table.ruletable

screens: $(STAMP)
	$(BIN)/python -m tractor_table.screens docs/display docs/display.md

deploy: $(STAMP)
	@test -n "$(PORT)" || { echo "usage: make deploy PORT=/dev/ttyACM0"; exit 2; }
	$(BIN)/tractor-table deploy --port $(PORT) $(if $(CARDS),--cards $(CARDS),)

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

wasm: $(STAMP)
	$(BIN)/python -c "from tractor_table import wasm32; print(wasm32.install())"

fuzz-rules: $(STAMP)
	$(BIN)/tractor-table fuzz-rules $(if $(ADVERSARIAL),--adversarial $(ADVERSARIAL),--hands $(HANDS)) $(if $(SEED),--seed $(SEED),)

CUTS ?= 1000

soak-flash: $(STAMP)
	$(BIN)/python bench/bench_flash.py --cuts $(CUTS) $(if $(SEED),--seed $(SEED),)

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache .hypothesis
