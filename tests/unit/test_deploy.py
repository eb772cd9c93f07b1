"""deploy/: compose, Kubernetes and Grafana files agree with each other and with the code:
the same ports, names, config and metrics everywhere."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from prometheus_client import REGISTRY

from memory_extproc import config as config_module
from memory_extproc import metrics  # noqa: F401 - registers every metric
from memory_extproc.server import SERVICE_NAME
from tests.deploy_files import ROOT, endpoints, envoy_configs, http_filters, kubernetes

DEPLOY = ROOT / "deploy"
CONFIG = config_module.load(DEPLOY / "config.yaml", environ={})
MILVUS_HOST, MILVUS_PORT = CONFIG.memory.milvus.address.split(":")
REPO_ENVOY = envoy_configs()["envoy/envoy.yaml"]


def by_kind(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (found,) = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


def test_deployed_envoy_configs_are_the_repository_chain() -> None:
    for name in ["deploy/envoy.yaml", "deploy/kubernetes/envoy.yaml#envoy-config"]:
        assert http_filters(envoy_configs()[name]) == http_filters(REPO_ENVOY), name


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
        assert "./config.yaml:/etc/memory-extproc/config.yaml:ro" in service["volumes"]
        assert f"spool:{CONFIG.memory.extraction.spool_dir}" in service["volumes"]
        assert f"127.0.0.1:{grpc}" in " ".join(service["healthcheck"]["test"])
        assert SERVICE_NAME in " ".join(service["healthcheck"]["test"])
        assert any(p.split(":")[1] == str(CONFIG.server.admin_port) for p in service["ports"])
    assert MILVUS_HOST in services
    assert f"{MILVUS_PORT}:{MILVUS_PORT}" in services[MILVUS_HOST]["ports"]
    assert "./envoy.yaml:/etc/envoy/envoy.yaml:ro" in services["envoy"]["volumes"]
    listener = envoy["static_resources"]["listeners"][0]["address"]["socket_address"]
    assert f"{listener['port_value']}:{listener['port_value']}" in services["envoy"]["ports"]


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
    assert "emptyDir" in volumes["spool"]  # captured turns outlive a container restart
    assert mounts["spool"] == CONFIG.memory.extraction.spool_dir
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
