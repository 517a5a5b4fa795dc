# Build and test "Why residual networks train" from nothing.
#
#   make book      set everything up, then build the site clean into _build/html
#   make test      set everything up, then run every test (unit, notebooks, clean build, browser)
#   make student   build the edition without solutions into _build/student/html
#
# Setup steps are idempotent: the virtual environment is rebuilt only when requirements.txt or
# pyproject.toml change (stamp file .venv/.installed), assets only when their versions change.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM ?= /usr/bin/chromium
TIMED := scripts/timed.sh
# Two workers for two cores; one thread each so torch does not oversubscribe the machine.
export OMP_NUM_THREADS ?= 1
# PyTorch build installed into .venv on Linux: cpu (PyTorch's CPU index, when reachable) or cuda.
export TORCH ?= cpu
export MKL_NUM_THREADS ?= 1
# A non-interactive backend in the environment would make notebook figures vanish.
unexport MPLBACKEND
NOTEBOOKS := $(sort $(wildcard book/*.ipynb))

.PHONY: help setup venv assets chromium book book-build test test-unit test-notebooks lint text \
        test-slow test-browser test-student student clean mutation lab lab-prepare test-lab teach test-teach \
        assignments grade

help:
	@echo "make book     - set up .venv and assets, build the site into _build/html"
	@echo "make test     - set up, then lint, unit tests, notebooks (nbval), clean build, browser tests"
	@echo "                of the site and of JupyterLab"
	@echo "make student  - build the student edition (no solutions) into _build/student/html"
	@echo "make test-student - the browser test against the student edition"
	@echo "make lab      - set up .venv only (no book build) and open JupyterLab on lab/full,"
	@echo "                a working copy of the chapters that git ignores (MyST rendered)"
	@echo "make lab EDITION=student - the same on lab/student: the chapters without solutions"
	@echo "make grade SUBMISSIONS=dir - run and score students' notebooks: _build/grades/scores.csv, reports/"
	@echo "make teach    - course materials into _build/teach: book PDF, exercise sheets, keys, slides"
	@echo "make test-lab - the JupyterLab browser test (two chapters run in Chromium)"
	@echo "make test-teach - the checks of _build/teach (answers in the keys, no '??')"
	@echo "make lint     - ruff over the package and, through nbqa, the chapters' code cells"
	@echo "make text     - rewrite the chapters' text twins book/text/*.py from the notebooks"
	@echo "make mutation - the mutation audit of the mathematics (hours; SAMPLE=60: a sample; not in make test)"
	@echo "make clean    - remove _build"

# --- setup ---------------------------------------------------------------------------------

# scripts/install.py: the lock, with PyTorch's CPU build on Linux (TORCH=cuda for the CUDA build),
# then the package with --no-deps.
$(STAMP): requirements.txt pyproject.toml
	@if ! $(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1; then \
	  echo "python3-venv is missing: installing it with apt-get"; \
	  apt-get update -qq && apt-get install -y -qq python3-venv; fi
	@if [ ! -x $(BIN)/python ]; then $(PYTHON) -m venv $(VENV); fi
	$(BIN)/python scripts/install.py
	@touch $(STAMP)

venv: $(STAMP)

assets:
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm is missing: installing nodejs and npm with apt-get"; \
	  apt-get update -qq && apt-get install -y -qq nodejs npm; fi
	scripts/fetch_assets.sh

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  echo "$(CHROMIUM) is missing: installing Debian's chromium with apt-get"; \
	  apt-get update -qq && apt-get install -y -qq chromium; fi

setup: venv assets

# --- the book ------------------------------------------------------------------------------

# A gating build must start clean: a rebuild over an old _build/ can hide a failing notebook.
# The chapters execute in parallel (one per core, longest first) and are recorded in .cache/exec;
# a chapter whose notebook, package, results and lock are unchanged is replayed, not executed
# (scripts/exec_cache.py). EXEC_CACHE=0 executes every chapter again. Per-chapter times:
# _build/exec_times.tsv.
EXEC_CACHE ?= 1
# every online core (not `nproc`: it obeys OMP_NUM_THREADS=1, exported above, and says 1)
BOOK_JOBS ?= $(shell getconf _NPROCESSORS_ONLN)
book-build:
	rm -rf _build/html _build/.doctrees _build/jupyter_execute _build/.jupyter_cache _build/exec_times.tsv
	RESNET_NB_EXEC_CACHE=$(EXEC_CACHE) BOOK_JOBS=$(BOOK_JOBS) \
	  $(BIN)/python scripts/build_book.py build . --warningiserror --nitpick --keep-going
	@echo "=== chapter execution (chapter, executed/replayed, seconds):"; sort -k3 -n -r _build/exec_times.tsv

book:
	@rm -f _build/timings.txt
	@$(TIMED) setup $(MAKE) --no-print-directory setup
	@$(TIMED) book-build $(MAKE) --no-print-directory book-build

student: setup
	$(BIN)/python scripts/build_student.py

# --- tests ---------------------------------------------------------------------------------

# ruff over the package, tests and scripts (ruff.toml), and over the chapters' code cells
# through nbqa (book/ruff.toml: lines of at most 100 characters); ruff's formatter; the
# package's layers (.importlinter: core -> papers -> book, imports only downward); the code's
# shape (scripts/check_layout.py); the chapters' caps (scripts/code_metrics.py: no function defined
# outside exercise answers, no code cell over 25 lines) and their text twins (scripts/chapter_text.py:
# book/text/<chapter>.py says what book/<chapter>.ipynb says); dead code (vulture, pyproject.toml).
lint:
	$(BIN)/ruff check resnet_nb tests scripts benchmarks
	$(BIN)/ruff format --check resnet_nb tests scripts benchmarks $(NOTEBOOKS)
	$(BIN)/nbqa ruff $(NOTEBOOKS)
	$(BIN)/lint-imports --no-cache
	$(BIN)/python scripts/check_layout.py
	$(BIN)/python scripts/code_metrics.py --check
	$(BIN)/python scripts/chapter_text.py --check
	$(BIN)/python scripts/notebook_code.py .cache/notebook_code.py
	$(BIN)/vulture

# The unit tests without the `slow` ones (every ledger claim, which the claims page runs in the
# book build and again under nbval); `make test-slow` runs those.
test-unit:
	$(BIN)/python -m pytest tests -n 2 --dist loadfile --ignore=tests/browser --ignore=tests/lab --ignore=tests/teach -p no:cacheprovider -q -m "not slow" --durations=15

test-slow:
	$(BIN)/python -m pytest tests -n 2 --dist loadfile --ignore=tests/browser --ignore=tests/lab --ignore=tests/teach -p no:cacheprovider -q -m slow

# Determinism: nbval executes every chapter a second time and compares every cell's output with
# the outputs the book build recorded (_build/jupyter_execute, strict mode). Outputs that
# legitimately differ between runs (memory addresses, random element ids) are listed in
# tests/nbval_sanitize.cfg; figures (PNG) are not compared, nor the outputs of cells that show an
# ipywidget (tagged nbval-ignore-output: a widget's output area is routed by the front end, which
# nbval does not model; scripts/tag_widget_cells.py --check fails on an untagged one). The
# root conftest.py makes nbval execute with history, so a trailing ';' hides a value as in
# Jupyter. A kernel that does not answer at start-up is replaced (tests/nbval_kernels.py); every
# kernel's stderr is kept in _build/nbval-kernels/. Needs a book build first.
EXECUTED := _build/jupyter_execute/book
test-notebooks:
	@if [ ! -d $(EXECUTED) ]; then $(MAKE) --no-print-directory book-build; fi
	$(BIN)/python scripts/tag_widget_cells.py --check
	rm -rf _build/nbval-kernels
	$(BIN)/python -m pytest --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg \
	  --nbval-cell-timeout=300 -n 2 --dist loadfile --durations=15 -p no:cacheprovider -q \
	  $(EXECUTED)/*.ipynb

test-browser: chromium
	$(BIN)/python -m pytest tests/browser -p no:cacheprovider -q

# The browser test against the student edition (run `make student` first).
test-student: chromium
	SITE_DIR=_build/student/html SCREENSHOT_DIR=_build/student/screenshots \
	  $(BIN)/python -m pytest tests/browser -p no:cacheprovider -q

test:
	@rm -f _build/timings.txt
	@$(TIMED) setup $(MAKE) --no-print-directory setup chromium
	@$(TIMED) lint $(MAKE) --no-print-directory lint
	@$(TIMED) unit-tests $(MAKE) --no-print-directory test-unit
	@$(TIMED) book-build $(MAKE) --no-print-directory book-build
	@$(TIMED) notebooks-nbval $(MAKE) --no-print-directory test-notebooks
	@$(TIMED) browser-test $(MAKE) --no-print-directory test-browser
	@$(TIMED) lab-browser-test $(MAKE) --no-print-directory test-lab
	@echo "=== stage timings (stage, seconds, exit status):"; cat _build/timings.txt

# --- students and teachers -----------------------------------------------------------------

# JupyterLab on a working copy (lab/full or lab/student, git-ignored) refreshed from book/
# without overwriting a student's edits; only the virtual environment is needed, not the book.
EDITION ?= full
LAB_PORT ?= 8888
lab: venv
	$(BIN)/python scripts/lab.py open --edition $(EDITION) --port $(LAB_PORT)

lab-prepare: venv
	$(BIN)/python scripts/lab.py prepare --edition $(EDITION)

# The live path in a browser: JupyterLab started by the test, two chapters run in Chromium.
test-lab: chromium
	$(BIN)/python -m pytest tests/lab -p no:cacheprovider -q

# Course materials from the built book (built first if _build/html is missing).
teach: setup chromium
	@if [ ! -f _build/html/index.html ]; then $(MAKE) --no-print-directory book-build; fi
	$(BIN)/python -m scripts.teach.build
	$(MAKE) --no-print-directory test-teach

test-teach:
	$(BIN)/python -m pytest tests/teach -p no:cacheprovider -q

# Exercises that answer back: one notebook per lecture with its problems' answer and check cells
# (_build/teach/assignments), and the grader: every notebook under SUBMISSIONS run in isolation
# with a time limit (GRADE_LIMIT seconds per notebook, GRADE_CELL_LIMIT per cell), scores in
# _build/grades/scores.csv and details.csv, a report per student in _build/grades/reports/.
GRADE_LIMIT ?= 900
GRADE_CELL_LIMIT ?= 300
GRADE_JOBS ?= 1
assignments: venv
	$(BIN)/python -m scripts.teach.assignment

grade: venv
	@if [ -z "$(SUBMISSIONS)" ]; then echo "usage: make grade SUBMISSIONS=folder"; exit 2; fi
	$(BIN)/python -m scripts.teach.grade "$(SUBMISSIONS)" --limit $(GRADE_LIMIT) \
	  --cell-limit $(GRADE_CELL_LIMIT) --jobs $(GRADE_JOBS)

# The mutation audit (mutmut, configured in setup.cfg; CONTRIBUTING.md, "Mutation testing"):
# resumable, writes results/mutation/report.md. Every mutant takes hours on two cores;
# SAMPLE=60 runs a seeded random sample of 60 mutants per module (minutes to an hour).
mutation: venv
	nice -n 10 $(BIN)/python scripts/mutation_audit.py $(if $(SAMPLE),--sample $(SAMPLE))

# The chapters' text twins (book/text/<chapter>.py, jupytext's percent format), rewritten from the
# notebooks; `make lint` fails while one is stale. After editing a twin instead:
# python scripts/chapter_text.py --to-notebook book/text/<chapter>.py
text: venv
	$(BIN)/python scripts/chapter_text.py

clean:
	rm -rf _build
