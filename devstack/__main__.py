"""`make run`: Milvus standalone, the processor, Envoy on :8080, the local extraction model and,
without LLM_BASE_URL, a demo LLM, all local; Ctrl-C stops every one of them.
`python -m devstack token alice` prints a token.

How answers are learned from:
* default: facts extracted by the local model (local_llm.py), started at nice 19;
* `EXTRACTION_MODEL=name` (with `LLM_BASE_URL`): facts extracted by that model of your endpoint;
* `LEARN=notes`: no model, each substantive turn kept as a Q/A note.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path
from urllib.parse import urlsplit

from devstack.envoy import EnvoyProcess, Upstream, render
from devstack.local_llm import LocalLlmProcess
from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM, statement_extractor
from devstack.ports import free_port, port_is_free
from devstack.processor import ProcessorProcess, write_config
from devstack.tokens import DevIdentity
from devstack.valkey import ValkeyProcess

RUN_DIR = Path(os.environ.get("MEMORY_EXTPROC_RUN_DIR", ".run"))
LEARN_MODES = ("model", "notes")
Started = MilvusProcess | ValkeyProcess | ProcessorProcess | EnvoyProcess | LocalLlmProcess


def _port(preferred: int) -> int:
    return preferred if port_is_free(preferred) else free_port()


async def run() -> None:
    envoy_port = int(os.environ.get("ENVOY_PORT", "8080"))
    if not port_is_free(envoy_port):
        sys.exit(f"port {envoy_port} is in use: stop what uses it or set ENVOY_PORT")
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C, also when started in the background
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    learn = os.environ.get("LEARN", "model")
    if learn not in LEARN_MODES:
        sys.exit(f"LEARN={learn!r}: use one of {', '.join(LEARN_MODES)}")
    if os.environ.get("EXTRACTION_MODEL") and not os.environ.get("LLM_BASE_URL"):
        sys.exit("EXTRACTION_MODEL names a model of your endpoint: set LLM_BASE_URL too")
    replicas = os.environ.get("REPLICAS", "1")
    if not (replicas.isdigit() and 1 <= int(replicas) <= 8):
        sys.exit(f"REPLICAS={replicas!r}: use a number of processors from 1 to 8")
    started: list[Started] = []
    demo: list[MockLLM] = []
    startup = asyncio.ensure_future(_start(envoy_port, learn, int(replicas), started, demo))
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([startup, stopping], return_when=asyncio.FIRST_COMPLETED)
        if startup.done():
            startup.result()  # a failed start raises here, with the failing part's log
            await stopping
    finally:
        print("\nstopping …")
        startup.cancel()
        stopping.cancel()
        for mock in demo:
            await mock.stop()
        for process in reversed(started):
            process.stop()


async def _start(
    envoy_port: int, learn: str, replicas: int, started: list[Started], demo: list[MockLLM]
) -> None:
    """Start every part; waits run in threads so Ctrl-C is honoured at any moment. Replicas are
    processors behind the one Envoy, sharing conversation state, captured turns and the store's
    write locks in Valkey (none writes to their one spool_dir then): replica 1 uses config.yaml
    and processor.log, replica k config-k.yaml and processor-k.log."""
    identity = DevIdentity(RUN_DIR / "identity")
    milvus = MilvusProcess(RUN_DIR / "milvus", _port(19530))
    started.append(milvus)
    print(f"starting Milvus standalone on :{milvus.port} (data in {RUN_DIR / 'milvus'}) …")
    base_url, extraction_model = os.environ.get("LLM_BASE_URL"), os.environ.get("EXTRACTION_MODEL")
    local: LocalLlmProcess | None = None
    if learn == "model" and not extraction_model:
        local = LocalLlmProcess(_port(8010), RUN_DIR / "local-llm.log")
        started.append(local)
        print(f"starting the local extraction model on :{local.port} (nice 19) …")
    shared: ValkeyProcess | None = None
    if replicas > 1:
        shared = ValkeyProcess(RUN_DIR / "valkey", _port(6379))
        started.append(shared)
        print(f"starting Valkey on :{shared.port} (what the replicas share) …")
    await asyncio.to_thread(milvus.wait_ready)
    ports = [(_port(50051 + k), _port(9190 + k)) for k in range(replicas)]
    # Every turn is extracted at once (the product's default waits for 10 turns or 5 idle
    # minutes): what you tell it is remembered seconds later.
    memory: dict[str, object] = {
        "milvus": {"address": f"127.0.0.1:{milvus.port}"},
        "extraction_batch_size": 1,
        "extraction": {"spool_dir": str(RUN_DIR / "spool")},  # with the run's other data
    }
    if shared is not None:
        await asyncio.to_thread(shared.wait_ready)
        memory["valkey"] = {"url": shared.url}
    if local is not None:
        await asyncio.to_thread(local.wait_ready)
        memory["external_models"] = [local.endpoint()]
    elif learn == "model" and base_url and extraction_model:
        llm = Upstream.from_url(base_url)
        endpoint = {"address": llm.host, "port": llm.port, "scheme": "https" if llm.tls else "http",
                    "api_key": os.environ.get("LLM_API_KEY", "")}  # fmt: skip
        memory["external_models"] = [
            {"model_role": "memory_extraction", "llm_endpoint": endpoint,
             "llm_model_name": extraction_model}
        ]  # fmt: skip
    processors = []
    for k, (grpc_port, metrics_port) in enumerate(ports):
        suffix = f"-{k + 1}" if k else ""
        config = write_config(
            RUN_DIR / f"config{suffix}.yaml",
            {
                "memory": memory,
                "server": {
                    "host": "127.0.0.1",
                    "grpc_port": grpc_port,
                    "admin_host": "127.0.0.1",
                    "admin_port": metrics_port,
                },
            },
        )
        processor = ProcessorProcess(config, grpc_port, RUN_DIR / f"processor{suffix}.log")
        started.append(processor)
        processors.append((processor, metrics_port))
    for processor, _ in processors:
        await asyncio.to_thread(processor.wait_ready)
    print("waiting for memory to come on (Milvus may be replaying its log) …")
    for processor, metrics_port in processors:
        await asyncio.to_thread(processor.wait_memory_enabled, metrics_port)
    if base_url:
        upstream = Upstream.from_url(base_url)
    else:
        mock = MockLLM(demo=True)
        demo.append(mock)
        upstream = Upstream("127.0.0.1", await mock.start(port=_port(8000)))
    envoy = EnvoyProcess(
        render(
            listen_port=envoy_port,
            admin_port=_port(9901),
            processor_ports=[grpc_port for grpc_port, _ in ports],
            upstream=upstream,
            jwks_path=identity.jwks_path,
            upstream_api_key=os.environ.get("LLM_API_KEY", ""),
            otlp=_otlp_collector(),
        ),
        RUN_DIR / "envoy",
    )
    started.append(envoy)
    await asyncio.to_thread(envoy.wait_ready)
    learning = (
        "notes (no model)" if learn == "notes"
        else f"the local model ({local.port})" if local is not None
        else f"{extraction_model} at {base_url}"
    )  # fmt: skip
    _banner(envoy_port, [m for _, m in ports], upstream, bool(demo), identity, learning)


def _otlp_collector() -> tuple[str, int] | None:
    """Where Envoy sends its spans: the collector the processor exports to (OTLP/gRPC)."""
    endpoint = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get(
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    if not endpoint:
        return None
    url = urlsplit(endpoint if "://" in endpoint else f"http://{endpoint}")
    return url.hostname or "127.0.0.1", url.port or 4317


def _banner(
    port: int,
    metrics_ports: list[int],
    upstream: Upstream,
    demo: bool,
    ids: DevIdentity,
    learning: str,
) -> None:
    alice, bob = ids.token("alice"), ids.token("bob")
    metrics = "   ".join(f"http://127.0.0.1:{p}/metrics" for p in metrics_ports)
    replicas = f" ({len(metrics_ports)} replicas)" if len(metrics_ports) > 1 else ""
    llm = "built-in demo LLM" if demo else f"{upstream.host}:{upstream.port}"
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    print(
        f"""
memory-extproc is running: Envoy on :{port} → memory-extproc{replicas} → {llm}
  learning from answers with {learning}
  metrics:   {metrics}      logs: {RUN_DIR}/*.log

Tokens (valid 7 days; more with `.venv/bin/python -m devstack token NAME`):
  export ALICE={alice}
  export BOB={bob}

Give alice a memory (memory API, with her token), then ask as alice and as bob:
  curl -s http://127.0.0.1:{port}/v1/memory -H "authorization: Bearer $ALICE" \\
      -H 'content-type: application/json' \\
      -d '{{"content": "My budget for the Hawaii trip is $10,000"}}'
  ASK='{{"model":"demo","messages":[{{"role":"user","content":"What is my Hawaii trip budget?"}}]}}'
  curl -s {url} -H "authorization: Bearer $ALICE" -H 'content-type: application/json' -d "$ASK"
  curl -s {url} -H "authorization: Bearer $BOB" -H 'content-type: application/json' -d "$ASK"

Then tell it something about yourself (and later that it changed), and ask again a few seconds
later in a new conversation; see what it learned:
  curl -s http://127.0.0.1:{port}/v1/memory -H "authorization: Bearer $ALICE"     # or, as operator:
  .venv/bin/memory-extproc -c {RUN_DIR}/config.yaml memories list --user alice
Forget everything about alice:
  curl -s -X DELETE 'http://127.0.0.1:{port}/v1/memory?scope=user' -H "authorization: Bearer $ALICE"

Ctrl-C stops everything.""",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m devstack")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("run", help="run the local stack until Ctrl-C")
    token = commands.add_parser("token", help="print a development JWT for a user")
    token.add_argument("user")
    token.add_argument("--project", default="")
    mock = commands.add_parser("mock-llm", help="run the demo LLM alone (used by make bench)")
    mock.add_argument("--port", type=int, required=True)
    mock.add_argument("--extractor", default="", help="also answer as this extraction model")
    args = parser.parse_args()
    if args.command == "token":
        print(DevIdentity(RUN_DIR / "identity").token(args.user, args.project))
    elif args.command == "mock-llm":
        asyncio.run(_mock_llm(args.port, args.extractor))
    else:
        asyncio.run(run())


async def _mock_llm(port: int, extractor: str) -> None:
    mock = MockLLM(demo=True)
    if extractor:
        mock.on_model(extractor, statement_extractor)
    await mock.start(port=port)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    await stop.wait()
    await mock.stop()


if __name__ == "__main__":
    main()
