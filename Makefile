# Developer entry points. `make help` lists them.
# Everything runs inside a project-local virtual environment (.venv) that
# `make setup` creates, so a fresh machine needs nothing installed by hand.
SYSTEM_PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export PATH := $(abspath $(VENV))/bin:$(PATH)
PROTO_SRC := protos
PROTO_OUT := protos/gen
PROTOS := $(wildcard $(PROTO_SRC)/lats_pb/*.proto)
ADDR ?= 127.0.0.1:50051
PYTEST_ARGS ?=
TEST_MODEL ?= qwen2.5-coder-0.5b
TS_ENV := env_servers_ts
TS_ADDR ?= 127.0.0.1:50061

.PHONY: help setup protos test test-fast conformance demo bench clean ts-env ts-test ts-serve

help:
	@echo "make demo         set up (once) and run the main job: a real LATS search across three services"
	@echo "make test         set up (once) and run the whole test suite (what CI runs)"
	@echo "make setup        install system packages, the project and its dependencies into $(VENV)"
	@echo "make protos       regenerate protos/gen from protos/lats_pb/*.proto"
	@echo "make conformance ADDR=host:port   run the environment conformance kit against a server"
	@echo "make bench        print throughput figures (search machinery, sandbox, environments)"
	@echo "make ts-env       install the TypeScript environment's npm packages (npm ci) and build it"
	@echo "make ts-test      run the TypeScript environment's own unit tests (npm test)"
	@echo "make ts-serve TS_ADDR=host:port   serve the TypeScript sliding-puzzle environment"

$(PY):
	$(SYSTEM_PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

setup: $(PY)
	bash scripts/install_system_packages.sh
	$(PY) -m pip install --quiet --progress-bar off -e '.[test]'
	# TRL without torch: its data utilities check the training export (pyproject's trl-data extra)
	$(PY) -m pip install --quiet --progress-bar off --no-deps trl==1.16.0
	# the fast embedded model: the real-model tests load it (≈0.5 GB, once)
	$(PY) -m lats model fetch $(TEST_MODEL)
	$(MAKE) ts-env

protos: $(PY)
	rm -rf $(PROTO_OUT)/lats_pb
	mkdir -p $(PROTO_OUT)/lats_pb
	$(PY) -m grpc_tools.protoc -I $(PROTO_SRC) --python_out=$(PROTO_OUT) \
	  --pyi_out=$(PROTO_OUT) --grpc_python_out=$(PROTO_OUT) $(PROTOS)
	touch $(PROTO_OUT)/lats_pb/__init__.py

# LATS_REQUIRE_MODEL=1: a missing model fails the real-model tests instead of skipping them.
test: setup
	LATS_REQUIRE_MODEL=1 $(PY) -m pytest -q -ra $(PYTEST_ARGS)

test-fast: setup
	$(PY) -m pytest -q -ra -m "not slow_model" $(PYTEST_ARGS)

demo: setup
	$(PY) -m lats demo

bench: setup
	$(PY) bench/bench_search_throughput.py
	$(PY) bench/bench_sandbox.py
	$(PY) bench/bench_wiki.py
	$(PY) bench/bench_webshop.py
	$(PY) bench/bench_coderunner.py
	$(PY) bench/bench_local_model.py --model $(TEST_MODEL)
	$(PY) bench/bench_search_overhead.py --model $(TEST_MODEL)
	$(PY) bench/bench_observability.py

# The TypeScript environment server (env_servers_ts/): Node 20 + npm, lockfile pinned.
ts-env:
	cd $(TS_ENV) && npm ci --no-fund --no-audit && npm run build

ts-test: ts-env
	cd $(TS_ENV) && npm test

ts-serve: ts-env
	node $(TS_ENV)/dist/main.js --host $(firstword $(subst :, ,$(TS_ADDR))) --port $(lastword $(subst :, ,$(TS_ADDR)))

conformance:
	$(PY) -m lats conformance $(ADDR)

clean:
	rm -rf build dist *.egg-info .pytest_cache
