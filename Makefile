# Each target sets itself up: a local .venv with the pinned dependencies, rebuilt when
# pyproject.toml or localcluster/pyproject.toml changes. Only python3 (3.11+) and make are
# needed on the machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HASH   := $(shell cat pyproject.toml localcluster/pyproject.toml | sha1sum | cut -c1-12)
CORE   := $(VENV)/.core-$(HASH)
FULL   := $(VENV)/.test-$(HASH)
# The policy pack's own virtualenv (policy/requirements.txt): pulumi_policy pins protobuf
# 5.29, which the project's venv cannot share (ray[default] needs protobuf 6.x).
PACK   := policy/.venv/.ready-$(shell cat policy/requirements.txt pyproject.toml | sha1sum | cut -c1-12)

.PHONY: plan test check bench bench-real clean tools try

# The real systems of the end-to-end tier (Kubernetes, Volcano, KubeRay, kwok, Pulumi), built
# from the Go module proxy into a cache keyed on each module's go.sum (tools/build).
tools:
	@tools/build >/dev/null

$(CORE):
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	@touch $@

# The local control plane of the real-engine tier is its own distribution (localcluster/):
# a path in this repository cannot be a PEP 508 requirement of the test extra, so it is
# installed here, beside the extras.
$(FULL): $(CORE)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,bench,live]' -e ./localcluster
	@touch $@

# What `pulumi install` in policy/ does through our language host, without the CLI.
$(PACK):
	@test -x policy/.venv/bin/python || $(PYTHON) -m venv policy/.venv
	@cd policy && .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

## plan: the offline plan of the sample stack (dev); pass options with ARGS="--format json"
plan: $(CORE)
	@$(BIN)/raygang plan $(ARGS)

## test: the whole test suite (unit, property, golden, Pulumi mocks, real Ray, real engine on a
## local control plane, the policy pack), the Go tests of our language host, then layer
## contracts, lint and types
test: $(FULL) $(PACK) tools
	$(BIN)/python -m pytest $(ARGS)
	cd tools/pulumi && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod go test ./cmd/...
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff check components localcluster policy provider tests benchmarks __main__.py
	$(BIN)/ruff format --check components localcluster policy provider tests benchmarks __main__.py
	$(BIN)/mypy

## try: a local control plane (Volcano, KubeRay, fake nodes) and `pulumi up` of the dev stack;
## Ctrl-C stops it. STACK=ml-platform for the other stack.
try: $(FULL) tools
	$(BIN)/python -m raygang_localcluster try --stack $(or $(STACK),dev)

## bench: benchmarks with ratios against baselines measured in the same run
bench: $(FULL)
	$(BIN)/python -m benchmarks $(ARGS)

## bench-real: pulumi preview/up of 1, 10, 100 jobs on the local control plane, against bare
## pulumi_kubernetes resources and kubectl apply --server-side of the same objects
bench-real: $(FULL) tools
	$(BIN)/python -m benchmarks.real_engine $(ARGS)

clean:
	rm -rf $(VENV) policy/.venv .pytest_cache .mypy_cache .ruff_cache .hypothesis .import_linter_cache
