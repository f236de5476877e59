# throttlelab: two commands on a fresh machine.
#   make report   set up if needed, then run the default study into reports/
#   make test     set up if needed, then run the test suite
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
STUDY ?= studies/default.yaml

.PHONY: setup system-tools report test bench control-plane clean-reports help notebooks screenshots

help:
	@echo "make report   - run the default study (sets up .venv and system tools if missing)"
	@echo "make test     - run the tests (sets up if missing)"
	@echo "make bench    - run the benchmarks (ratios measured in one run)"
	@echo "make screenshots - docs/screenshots/: the index and each published report's first screen"

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m ipykernel install --sys-prefix --name throttlelab --display-name "Python (throttlelab)" >/dev/null
	@touch $@

# ffmpeg and chromium from Debian packages, only when missing.
system-tools:
	@bash scripts/install_system_tools.sh

# Real kube-apiserver, etcd, kube-scheduler and kwok built from the Go module proxy,
# cached outside the repo (THROTTLELAB_CACHE, default ~/.cache/throttlelab).
control-plane:
	@bash scripts/build_control_plane.sh

report: setup system-tools
	$(VENV)/bin/throttlelab run $(STUDY)

# Paired notebooks: sync each .ipynb with its percent script and strip outputs (the tests run this first).
notebooks: setup
	@$(VENV)/bin/jupytext --quiet --sync notebooks/[0-9]*.ipynb
	@$(VENV)/bin/nbstripout notebooks/[0-9]*.ipynb

test: setup system-tools control-plane notebooks
	$(PY) -m pytest -q

# docs/screenshots/: the index and each published report's first screen (1280x800), as a reader sees them.
screenshots: setup system-tools
	@d=$$(mktemp -d); $(VENV)/bin/throttlelab run studies/published.yaml --reports $$d \
	  && $(VENV)/bin/throttlelab check $$d --screenshots docs/screenshots; rc=$$?; rm -rf $$d; exit $$rc

bench: setup system-tools
	$(PY) bench/run_all.py

clean-reports:
	rm -rf reports/*/ reports/index.html
