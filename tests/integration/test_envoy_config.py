"""The repository's Envoy configuration, as `make run` and the tests render it, is valid Envoy."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from devstack.envoy import REPO_CONFIG, Upstream, render
from devstack.tokens import DevIdentity
from memory_extproc import config as config_module
from memory_extproc.doctor import chain_problems
from memory_extproc.doctor import validate_envoy as validate
from tests.deploy_files import envoy_configs, http_filters

pytestmark = pytest.mark.integration


def filter_names(config: dict, listener: int = 0) -> list[str]:
    hcm = config["static_resources"]["listeners"][listener]["filter_chains"][0]["filters"][0]
    return [f["name"] for f in hcm["typed_config"]["http_filters"]]


@pytest.mark.parametrize("name", sorted(envoy_configs()))
def test_every_envoy_config_in_the_repository_is_valid_and_safe(name: str, tmp_path: Path) -> None:
    config = envoy_configs()[name]
    path = tmp_path / "envoy.yaml"
    path.write_text(yaml.safe_dump(config))
    ok, output = validate(path)
    assert ok, output
    names = [f["name"] for f in http_filters(config)]
    assert names[:2] == ["envoy.filters.http.header_mutation", "envoy.filters.http.jwt_authn"]
    assert names[-3:] == ["memory_extproc", "memory_api", "envoy.filters.http.router"]
    defaults = config_module.load(None)
    if "semantic-router" in name:
        defaults = config_module.load(None, {"MEMORY_EXTPROC__SERVER__GRPC_PORT": "50052"})
    assert chain_problems(config, defaults) == []


def test_doctor_spots_a_listener_that_would_refuse_requests_memory_lets_pass() -> None:
    """Bodies over server.max_message_mb pass through unread; below it Envoy buffers them for
    the processor, so its buffer must hold that much (else a 413, not an answer)."""
    config = yaml.safe_load(REPO_CONFIG.read_text())
    config["static_resources"]["listeners"][0]["per_connection_buffer_limit_bytes"] = 4 << 20
    problems = chain_problems(config, config_module.load(None))
    assert len(problems) == 1
    assert "Envoy buffers at most 4,194,304 bytes" in problems[0]
    smaller = config_module.load(None, {"MEMORY_EXTPROC__SERVER__MAX_MESSAGE_MB": "4"})
    assert chain_problems(config, smaller) == []
    del config["static_resources"]["listeners"][0]["per_connection_buffer_limit_bytes"]
    assert "at most 1,048,576 bytes" in chain_problems(config, smaller)[0]  # Envoy's default


def test_doctor_spots_a_route_that_would_refuse_requests_memory_lets_pass() -> None:
    """A virtual host's or a route's own buffer limit overrides the listener's, on the routes
    our filters read; a direct response (the memory API's 404) is not one of them."""
    config = yaml.safe_load(REPO_CONFIG.read_text())
    hcm = config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]
    host = hcm["typed_config"]["route_config"]["virtual_hosts"][0]
    api_route, _, llm_route = host["routes"]  # the middle one: bodies Envoy cannot buffer
    api_route["request_body_buffer_limit"] = 65536  # not forwarded anywhere: not ours to judge
    assert chain_problems(config, config_module.load(None)) == []
    llm_route["request_body_buffer_limit"] = 4 << 20
    (problem,) = chain_problems(config, config_module.load(None))
    assert "route {'prefix': '/'}: Envoy buffers at most 4,194,304 bytes" in problem
    assert "(request_body_buffer_limit)" in problem
    del llm_route["request_body_buffer_limit"]
    host["per_request_buffer_limit_bytes"] = 2 << 20  # the older field, on the virtual host
    (problem,) = chain_problems(config, config_module.load(None))
    assert "at most 2,097,152 bytes of a request (per_request_buffer_limit_bytes)" in problem
    llm_route["request_body_buffer_limit"] = 64 << 20  # the route's own wins over its host's
    assert chain_problems(config, config_module.load(None)) == []
    llm_route["request_body_buffer_limit"] = 1 << 20
    off = {
        "@type": api_route["typed_per_filter_config"]["memory_extproc"]["@type"],
        "disabled": True,
    }
    llm_route["typed_per_filter_config"] = {"memory_extproc": off, "memory_api": off}
    assert chain_problems(config, config_module.load(None)) == []  # memory reads nothing there


def test_doctor_spots_tokens_that_never_expire() -> None:
    config = yaml.safe_load(REPO_CONFIG.read_text())
    (jwt,) = [f for f in http_filters(config) if f["name"] == "envoy.filters.http.jwt_authn"]
    del jwt["typed_config"]["providers"]["local"]["require_expiration"]
    problems = chain_problems(config, config_module.load(None))
    assert problems == [
        "jwt_authn provider local: tokens without exp are accepted (require_expiration: true)"
    ]


def test_doctor_spots_an_unprotected_identity_header() -> None:
    config = yaml.safe_load(REPO_CONFIG.read_text())
    filters = http_filters(config)
    filters[:] = [f for f in filters if f["name"] != "envoy.filters.http.header_mutation"]
    problems = chain_problems(config, config_module.load(None))
    assert any("x-authz-user-id is not removed" in p for p in problems)


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
    assert filter_names(config, listener=1) == [  # the bench baseline: no ext_proc
        "envoy.filters.http.header_mutation", "envoy.filters.http.jwt_authn",
        "envoy.filters.http.router",
    ]  # fmt: skip
    vhost = config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0][
        "typed_config"
    ]["route_config"]["virtual_hosts"][0]
    assert vhost["request_headers_to_add"][0]["header"]["value"] == "Bearer sk-test"
    to_llm = [r["route"] for r in vhost["routes"] if "route" in r]
    assert len(to_llm) == 2  # memory reads the body; or it is too large for Envoy to buffer
    for route in to_llm:
        if upstream.tls:
            assert route["host_rewrite_literal"] == upstream.host
        if url.endswith("/openai"):
            assert route["prefix_rewrite"] == "/openai/"


def test_upstream_urls() -> None:
    assert Upstream.from_url("https://api.openai.com/v1") == Upstream(
        "api.openai.com", 443, True, ""
    )
    assert Upstream.from_url("http://localhost:11434") == Upstream("localhost", 11434, False, "")
    with pytest.raises(ValueError, match="not an http"):
        Upstream.from_url("ftp://x")
