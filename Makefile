# throttlelab: two commands on a fresh machine.
#   make report   set up if needed, then run the default study into reports/
#   make test     set up if needed, then run the test suite
# (make docs builds the documentation site into site/)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
STUDY ?= studies/default.yaml

.PHONY: setup git-filter system-tools report test bench control-plane clean-reports help notebooks node-tools cluster-up cluster-down screenshots fuzz docs

help:
	@echo "make report   - run the default study (sets up .venv and system tools if missing)"
	@echo "make test     - run the tests (sets up if missing)"
	@echo "make bench    - run the benchmarks (ratios measured in one run)"
	@echo "make fuzz     - the property tests with fresh random draws (make test repeats the same ones)"
	@echo "make cluster-up / cluster-down - a real one-node Kubernetes cluster on this machine (root)"
	@echo "make screenshots - docs/screenshots/: the index and each report's first screen (default study)"
	@echo "make docs     - the documentation site (mkdocs, Material) into site/; open site/index.html"

setup: $(STAMP) git-filter

$(STAMP): pyproject.toml
	@t0=$$(date +%s); test -x $(PY) || $(PYTHON) -m venv $(VENV); \
	$(PY) -m pip install --quiet --upgrade pip && \
	$(PY) -m pip install --quiet -e '.[dev]' && \
	$(PY) -m ipykernel install --sys-prefix --name throttlelab --display-name "Python (throttlelab)" >/dev/null && \
	echo "setup: .venv with throttlelab[dev] installed in $$(( $$(date +%s) - t0 )) s"
	@touch $@

# Notebook outputs never reach git: nbstripout as a git clean filter (.git/config + .gitattributes).
git-filter: $(STAMP)
	@bash scripts/install_git_filter.sh $(PY)

# ffmpeg and chromium from Debian packages, only when missing.
system-tools:
	@bash scripts/install_system_tools.sh

# Real kube-apiserver, etcd, kube-scheduler and kwok built from the Go module proxy,
# cached outside the repo (THROTTLELAB_CACHE, default ~/.cache/throttlelab).
control-plane:
	@bash scripts/build_control_plane.sh

# What the one-node cluster needs from Debian (containerd, runc, CNI plugins, prometheus,
# busybox-static), only when missing.
node-tools:
	@bash scripts/cluster/install_node_tools.sh

# A real one-node cluster (control plane, containerd, kubelet, Prometheus) that stays up;
# state under $${THROTTLELAB_CACHE:-~/.cache/throttlelab}/cluster. Last lines: PROMETHEUS=..., KUBECONFIG=...
cluster-up: setup node-tools control-plane
	@$(PY) scripts/cluster/cluster.py up

# Stop it and remove everything it made (processes, kubepods cgroups, mounts, interfaces).
cluster-down:
	@$$(test -x $(PY) && echo $(PY) || echo $(PYTHON)) scripts/cluster/cluster.py down

report: setup system-tools
	$(VENV)/bin/throttlelab run $(STUDY)

# Paired notebooks: sync each .ipynb with its percent script and strip outputs (the tests run this first).
notebooks: setup
	@$(VENV)/bin/jupytext --quiet --sync notebooks/[0-9]*.ipynb
	@$(VENV)/bin/nbstripout notebooks/[0-9]*.ipynb

test: setup system-tools node-tools control-plane notebooks
	$(PY) -m pytest -q

# The property tests with fresh random draws (make test repeats the same ones).
fuzz: setup
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q -p no:cacheprovider $$(grep -rl "from hypothesis" tests --include='test_*.py')

# docs/screenshots/: the index and each report of the default study ($(STUDY)): its first screen (1280x800), as a
# reader sees it. The PNGs are replaced only when every page rendered; a report the machine could not run has none.
screenshots: setup system-tools
	@t0=$$(date +%s); d=$$(mktemp -d); $(VENV)/bin/throttlelab run $(STUDY) --reports $$d/reports \
	  && $(VENV)/bin/throttlelab check $$d/reports --screenshots $$d/shots \
	  && rm -f docs/screenshots/*.png && cp $$d/shots/*.png docs/screenshots/ \
	  && echo "screenshots: $$(ls docs/screenshots/*.png | wc -l) PNGs in docs/screenshots/ in $$(( $$(date +%s) - t0 )) s"; \
	rc=$$?; rm -rf $$d; exit $$rc

# The documentation site (docs/ + mkdocs.yml) into site/, offline: the generated reference pages first.
# (not --quiet: with it, mkdocs 1.6 --strict no longer stops on a warning)
docs: setup
	@t0=$$(date +%s); $(PY) scripts/readme_tables.py && \
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site && \
	echo "docs: site/index.html built in $$(( $$(date +%s) - t0 )) s"

bench: setup system-tools
	$(PY) bench/run_all.py

clean-reports:
	rm -rf reports/*/ reports/index.html
