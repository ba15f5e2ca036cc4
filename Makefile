# Developer entry points. `make help` lists them.
PYTHON ?= python3
PROTO_SRC := protos
PROTO_OUT := protos/gen
PROTOS := $(wildcard $(PROTO_SRC)/lats_pb/*.proto)
ADDR ?= 127.0.0.1:50051

.PHONY: help setup protos test test-all conformance demo bench clean

help:
	@echo "make setup        install the project and its dependencies (apt + pip + model)"
	@echo "make demo         run the main job: a real LATS search across three services"
	@echo "make test         run the test suite (what CI runs)"
	@echo "make protos       regenerate protos/gen from protos/lats_pb/*.proto"
	@echo "make conformance ADDR=host:port   run the environment conformance kit"
	@echo "make bench        print throughput figures (expansions/s, Step round trip)"

protos:
	rm -rf $(PROTO_OUT)/lats_pb
	mkdir -p $(PROTO_OUT)/lats_pb
	$(PYTHON) -m grpc_tools.protoc -I $(PROTO_SRC) --python_out=$(PROTO_OUT) \
	  --pyi_out=$(PROTO_OUT) --grpc_python_out=$(PROTO_OUT) $(PROTOS)
	touch $(PROTO_OUT)/lats_pb/__init__.py

conformance:
	lats conformance $(ADDR)

clean:
	rm -rf build dist *.egg-info .pytest_cache
