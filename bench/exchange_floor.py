"""`make exchange-floor`: what one ext_proc exchange costs on this machine, by gRPC runtime.

The same processor that does no work (an empty reply to the request headers, one to the body,
then the clean close: message for message what ours answers for a turn memory leaves alone) on
three runtimes, each behind its own Envoy (the repository's config) in front of the same stand-in
LLM: grpc.aio (ours), grpcio's synchronous server (a thread pool), and Node's HTTP/2 (nghttp2,
in C) through @grpc/grpc-js. Each Envoy also has a `direct` listener without ext_proc; added
latency = percentile(through the processor) - percentile(direct), interleaved request by request
at a fixed rate, in rounds that rotate the runtimes (a slower minute of a shared machine weighs
on all). It tells how far any processor, in any language, could bring the pass-through's added
latency here, and what Python's runtime adds to it. Draws bench/exchange_floor.png; the last line
printed is one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp
import grpc
from grpc_health.v1 import health_pb2

from bench.dataset import Questions
from bench.harness import CONCURRENCY, EXTRACTOR, Samples, World, drive, percentile
from bench.harness import process_cpu_seconds as cpu_seconds
from devstack.envoy import EnvoyProcess, Upstream, render
from devstack.ports import free_port
from devstack.process import ManagedProcess
from devstack.processor import serving
from devstack.tokens import DevIdentity
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2 as pb
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from memory_extproc.extproc.protocol import CONTINUE_REQUEST_BODY, CONTINUE_REQUEST_HEADERS
from memory_extproc.extproc.servicer import SERVICE_NAME

ROUNDS = int(os.environ.get("FLOOR_ROUNDS", "3"))
REQUESTS = int(
    os.environ.get("FLOOR_REQUESTS", "1500")
)  # per runtime and round (and as many direct)
RATE = float(os.environ.get("FLOOR_RATE", "100"))  # requests/s, direct included
NODE_MODULES = Path(os.environ.get("FLOOR_NODE_MODULES", ".run/node-null/node_modules"))
# Envoy's ext_proc counters that a fail-open exchange moves: any of them above 0 and the run's
# added latency would be that of a failure, not of an exchange
FAILURES = ("streams_failed", "failure_mode_allowed", "spurious_msgs_received", "message_timeouts")
PLOT = Path("bench/exchange_floor.png")
AIM_MS = 1.0  # the pass-through's aim (issue 19)


def runtimes() -> dict[str, list[str]]:
    """Runtime name → its argv, ``{port}`` standing for the port it serves on."""
    python = [sys.executable, "-m", "bench.null_processor"]
    served = health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)
    node_args = [
        str(pb.ProcessingRequest.DESCRIPTOR.fields_by_name["request_headers"].number << 3 | 2),
        CONTINUE_REQUEST_HEADERS.SerializeToString().hex(),
        CONTINUE_REQUEST_BODY.SerializeToString().hex(),
        served.SerializeToString().hex(),
        # the health checks it answers: the server's, and the ext_proc service's (Envoy's)
        *(health_pb2.HealthCheckRequest(service=name).SerializeToString().hex()
          for name in ("", SERVICE_NAME)),
    ]  # fmt: skip
    return {
        "grpc.aio (ours)": [*python, "{port}"],
        "grpcio threads": [*python, "{port}", "--threads"],
        "node grpc-js": ["node", "bench/null_processor.js", "{port}", *node_args],
    }


async def check_replies(port: int) -> None:
    """The runtime answers a turn exactly as ours does for one memory leaves alone, or its
    figure would be the floor of something else."""
    turn = [
        pb.ProcessingRequest(request_headers=pb.HttpHeaders()),
        pb.ProcessingRequest(request_body=pb.HttpBody(body=b"{}", end_of_stream=True)),
    ]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = pb_grpc.ExternalProcessorStub(channel).Process(iter(turn))
        replies = [reply async for reply in call]
        code = await call.code()
    expected = [CONTINUE_REQUEST_HEADERS, CONTINUE_REQUEST_BODY]
    if replies != expected or code != grpc.StatusCode.OK:
        raise RuntimeError(f"null processor on port {port} answered {replies} ({code})")


async def require_no_failures(http: aiohttp.ClientSession, admin_port: int, name: str) -> None:
    """Every request went through the processor: none passed by Envoy's fail-open."""
    url = f"http://127.0.0.1:{admin_port}/stats?filter=ext_proc"
    async with http.get(url) as response:
        stats = dict(line.split(": ", 1) for line in (await response.text()).splitlines())
    counters = {k: v for k, v in stats.items() if k.rsplit(".", 1)[-1] in FAILURES}
    if len(counters) < len(FAILURES):  # renamed in a newer Envoy: the check would prove nothing
        raise RuntimeError(f"{name}: Envoy's ext_proc counters not found: {sorted(stats)}")
    failed = {k: v for k, v in counters.items() if v != "0"}
    if failed:
        raise RuntimeError(f"{name}: ext_proc exchanges failed open, not measured: {failed}")


def summarize(rounds: list[dict[str, float]]) -> dict[str, Any]:
    """Medians over the rounds, and the rounds themselves."""
    keys = ("added_p50_ms", "added_p99_ms", "direct_p50_ms", "processor_cpu_ms")
    return {
        **{key: round(statistics.median(r[key] for r in rounds), 3) for key in keys},
        "rounds": rounds,
    }


def plot(results: dict[str, dict[str, Any]], path: Path) -> None:
    """Added latency by runtime: the median over rounds, each round a dot, the aim a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axis = plt.subplots(figsize=(9, 3.8))
    names = list(results)
    for offset, key, color, label in ((-0.2, "added_p50_ms", "tab:blue", "added p50"),
                                      (0.2, "added_p99_ms", "tab:red", "added p99")):  # fmt: skip
        y = [i + offset for i in range(len(names))]
        values = [results[name][key] for name in names]
        axis.barh(y, values, height=0.38, color=color, alpha=0.75, label=label)
        for i, name in enumerate(names):
            dots = [r[key] for r in results[name]["rounds"]]
            axis.plot(dots, [y[i]] * len(dots), "k.", ms=4)
            axis.text(0.03, y[i], f"{values[i]:.2f} ms", va="center", color="white", fontsize=8,
                      fontweight="bold")  # fmt: skip
    axis.axvline(AIM_MS, color="k", linestyle="--", linewidth=1, label="pass-through aim")
    axis.set_yticks(range(len(names)), [
        f"{name}\nCPU {results[name]['processor_cpu_ms']:.2f} ms/request at {RATE / 2:.0f}/s"
        for name in names
    ], fontsize=8)  # fmt: skip
    axis.invert_yaxis()
    axis.set_xlabel("latency a processor that does no work adds through Envoy (ms)")
    rounds = len(next(iter(results.values()))["rounds"])
    axis.set_title(f"One ext_proc exchange, by runtime: median of {rounds} rounds, dots each round",
                   fontsize=10)  # fmt: skip
    axis.grid(True, axis="x", alpha=0.3)
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)


async def measure(names: Sequence[str], workdir: Path) -> dict[str, dict[str, Any]]:
    identity = DevIdentity(workdir / "identity")
    rng = random.Random(20261125)
    world = World(users=[f"floor-user-{i}" for i in range(50)], facts=[], owned={}, tokens={},
                  questions=Questions(rng), rng=rng, identity=identity)  # fmt: skip
    parts: list[Any] = []
    try:
        llm_port = free_port()
        parts.append(ManagedProcess("mock-llm", [sys.executable, "-m", "devstack", "mock-llm",
                                    "--port", str(llm_port), "--extractor", EXTRACTOR],
                                    workdir / "mock-llm.log"))  # fmt: skip
        pids, urls, admins = {}, {}, {}
        for name in names:
            port, listener, direct = free_port(), free_port(), free_port()
            argv = [arg.replace("{port}", str(port)) for arg in runtimes()[name]]
            null = ManagedProcess(name, argv, workdir / f"null-{len(pids)}.log")
            parts.append(null)
            await asyncio.to_thread(null.wait_until, lambda p=port: serving(p), 60)
            await check_replies(port)
            envoy = EnvoyProcess(
                render(listen_port=listener, admin_port=free_port(), processor_ports=[port],
                       upstream=Upstream("127.0.0.1", llm_port), jwks_path=identity.jwks_path,
                       direct_port=direct),
                workdir / f"envoy-{len(pids)}",
            )  # fmt: skip
            parts.append(envoy)
            await asyncio.to_thread(envoy.wait_ready)
            admins[name] = envoy.admin_port
            pids[name] = null.proc.pid
            base = "http://127.0.0.1:{}/v1/chat/completions"
            urls[name] = {"null": base.format(listener), "direct": base.format(direct)}
        connector = aiohttp.TCPConnector(limit=CONCURRENCY * 2)
        rounds: dict[str, list[dict[str, float]]] = {name: [] for name in names}
        async with aiohttp.ClientSession(connector=connector) as http:
            for name in names:
                await drive(http, urls[name], world, ["null", "direct"] * 200, Samples(), RATE)
            for index in range(ROUNDS):
                order = list(names[index % len(names) :]) + list(names[: index % len(names)])
                for name in order:
                    samples, before = Samples(), cpu_seconds(pids[name])
                    await drive(http, urls[name], world, ["null", "direct"] * REQUESTS, samples,
                                RATE)  # fmt: skip
                    used = (cpu_seconds(pids[name]) - before) / REQUESTS * 1000
                    latency = samples.latency
                    rounds[name].append({
                        "added_p50_ms": round(percentile(latency["null"], 50)
                                              - percentile(latency["direct"], 50), 3),
                        "added_p99_ms": round(percentile(latency["null"], 99)
                                              - percentile(latency["direct"], 99), 3),
                        "direct_p50_ms": round(percentile(latency["direct"], 50), 3),
                        "processor_cpu_ms": round(used, 3),
                    })  # fmt: skip
                    print(f"round {index + 1}/{ROUNDS} {name:16} {rounds[name][-1]}", flush=True)
            for name in names:
                await require_no_failures(http, admins[name], name)
        return {name: summarize(rounds[name]) for name in names}
    finally:
        for part in reversed(parts):
            part.stop()


def main() -> None:
    if shutil.which("node") is None or not (NODE_MODULES / "@grpc/grpc-js").is_dir():
        sys.exit(f"needs node on the PATH and @grpc/grpc-js in {NODE_MODULES}: make exchange-floor")
    os.environ["NODE_PATH"] = str(NODE_MODULES.resolve())  # the Node runtime's, inherited
    workdir = Path(tempfile.mkdtemp(prefix="memory-extproc-floor-"))
    print(f"{len(runtimes())} null processors, {ROUNDS} rounds of {REQUESTS} requests each at "
          f"{RATE:.0f}/s with as many direct, {CONCURRENCY} clients …", flush=True)  # fmt: skip
    results = asyncio.run(measure(list(runtimes()), workdir))
    shutil.rmtree(workdir, ignore_errors=True)
    # p99 added: p99(through the processor) - p99(direct); CPU: the process's over the run, per
    # request it served, at this rate (its wake-ups included: more than in a closed loop)
    print(f"\n| runtime | added p50 / p99 (median of {ROUNDS} rounds) | "
          f"its CPU per request at {RATE / 2:.0f}/s |")  # fmt: skip
    print("|---|---|---|")
    for name, result in results.items():
        print(f"| {name} | {result['added_p50_ms']:.2f} / {result['added_p99_ms']:.2f} ms | "
              f"{result['processor_cpu_ms']:.2f} ms |")  # fmt: skip
    plot(results, PLOT)
    out = Path("bench/results")
    out.mkdir(parents=True, exist_ok=True)
    report = {"rate": RATE, "requests": REQUESTS, "runtimes": results}
    (out / f"exchange-floor-{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(
        json.dumps(report, indent=2)
    )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
