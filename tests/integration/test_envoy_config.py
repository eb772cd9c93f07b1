"""The repository's Envoy configuration, as `make run` and the tests render it, is valid Envoy."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memory_extproc.devstack.envoy import REPO_CONFIG, Upstream, render, validate
from memory_extproc.devstack.tokens import DevIdentity

pytestmark = pytest.mark.integration


def filter_names(config: dict, listener: int = 0) -> list[str]:
    hcm = config["static_resources"]["listeners"][listener]["filter_chains"][0]["filters"][0]
    return [f["name"] for f in hcm["typed_config"]["http_filters"]]


def test_identity_is_stripped_then_verified_before_ext_proc() -> None:
    names = filter_names(yaml.safe_load(REPO_CONFIG.read_text()))
    assert names == [
        "envoy.filters.http.header_mutation",
        "envoy.filters.http.jwt_authn",
        "envoy.filters.http.ext_proc",
        "envoy.filters.http.router",
    ]


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000", "https://api.example.com/v1", "https://llm.internal:8443/openai"],
)
def test_rendered_configs_pass_envoy_validation(tmp_path: Path, url: str) -> None:
    identity = DevIdentity(tmp_path / "identity")
    upstream = Upstream.from_url(url)
    config = render(
        listen_port=18080, admin_port=19901, processor_ports=[50051, 50052], upstream=upstream,
        jwks_path=identity.jwks_path, direct_port=18081, upstream_api_key="sk-test",
    )  # fmt: skip
    path = tmp_path / "envoy.yaml"
    path.write_text(yaml.safe_dump(config))
    ok, output = validate(path)
    assert ok, output
    assert "envoy.filters.http.ext_proc" not in filter_names(config, listener=1)  # bench baseline
    route = config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0][
        "typed_config"
    ]["route_config"]["virtual_hosts"][0]["routes"][0]["route"]
    if upstream.tls:
        assert route["host_rewrite_literal"] == upstream.host
    vhost = config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0][
        "typed_config"
    ]["route_config"]["virtual_hosts"][0]
    assert vhost["request_headers_to_add"][0]["header"]["value"] == "Bearer sk-test"
    if url.endswith("/openai"):
        assert route["prefix_rewrite"] == "/openai/"


def test_upstream_urls() -> None:
    assert Upstream.from_url("https://api.openai.com/v1") == Upstream(
        "api.openai.com", 443, True, ""
    )
    assert Upstream.from_url("http://localhost:11434") == Upstream("localhost", 11434, False, "")
    with pytest.raises(ValueError, match="not an http"):
        Upstream.from_url("ftp://x")
