from __future__ import annotations

from pathlib import Path

import pytest

from memory_extproc import cli, config


def test_defaults_are_those_of_semantic_router_but_the_threshold() -> None:
    """semantic-router's 0.6 injected nothing for 28% of LoCoMo questions asked in the
    asker's own words (eval/RESULTS.md, make eval): ours is 0.45, questions in the memory voice."""
    cfg = config.load(None)
    assert cfg.memory.default_retrieval_limit == 5
    assert cfg.memory.default_similarity_threshold == 0.45
    assert cfg.memory.extraction_batch_size == 10
    assert cfg.memory.identity.user_header == "x-authz-user-id"
    assert cfg.memory.milvus.uri == "http://127.0.0.1:19530"


def test_a_semantic_router_memory_config_loads(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        """
memory:
  enabled: true
  auto_store: true
  milvus: {address: "milvus:19530", collection: agentic_memory, dimension: 384}
  embedding: {model: all-MiniLM-L6-v2, dimension: 384}
  default_retrieval_limit: 5
  default_similarity_threshold: 0.6
  extraction_batch_size: 10
  external_models:
    - llm_provider: vllm
      model_role: memory_extraction
      llm_endpoint: {address: qwen, port: 8000}
      llm_model_name: qwen3
      llm_timeout_seconds: 30
      max_tokens: 500
      temperature: 0.1
"""
    )
    cfg = config.load(path)
    assert cfg.memory.milvus.uri == "http://milvus:19530"
    assert cfg.memory.external_models[0].llm_endpoint.address == "qwen"
    # semantic-router's keys nothing needs load, and the log says they change nothing
    assert "memory.embedding.dimension is ignored" in caplog.text
    assert "memory.milvus.dimension is ignored" in caplog.text  # the layout has its own
    assert "memory.external_models[0].llm_provider is ignored" in caplog.text


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"memory": {"milvs": {}}}, "memory.milvs: unknown key (did you mean 'milvus'?)"),
        ({"memory": {"enabled": "yes"}}, "memory.enabled: expected true or false"),
        ({"memory": {"default_retrieval_limit": 5.5}}, "expected an integer"),
        ({"memory": {"default_similarity_threshold": 3}}, "out of range [-1, 1]"),
        ({"memory": {"milvus": {"partitions": 5000}}}, "memory.milvus.partitions"),
        ({"memory": {"external_models": [{"model_role": "chat"}]}}, "model_role: 'chat'"),
        ({"memory": {"identity": {"user_header": "X-User"}}}, "lower-case header name"),
        ({"memory": {"milvus": {"collection": "team-memories"}}}, "memory.milvus.collection: "),
        ({"server": []}, "server: expected a mapping"),
    ],
)
def test_mistakes_are_named(data: dict, message: str) -> None:
    with pytest.raises(config.ConfigError) as error:
        config.parse(data)
    assert message in str(error.value)


def test_unreadable_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigError, match="cannot read"):
        config.load(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("memory: [unclosed")
    with pytest.raises(config.ConfigError, match="not valid YAML"):
        config.load(bad)
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes("memory:\n  milvus: {collection: 'mémoire'}\n".encode("latin-1"))
    with pytest.raises(config.ConfigError, match="not UTF-8"):
        config.load(latin1)
    twice = tmp_path / "twice.yaml"
    twice.write_text("memory:\n  milvus: {address: 'a:1'}\n  milvus: {address: 'b:2'}\n")
    with pytest.raises(config.ConfigError, match="'milvus' is written twice"):
        config.load(twice)
    gopher = tmp_path / "gopher.yaml"
    gopher.write_text(
        "memory:\n  external_models:\n    - model_role: memory_extraction\n"
        "      llm_endpoint: {address: llm, port: 80, scheme: gopher}\n"
    )
    with pytest.raises(config.ConfigError, match="scheme"):
        config.load(gopher)


def test_environment_overrides_single_keys(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        "memory:\n  milvus: {address: 'a:1'}\n  external_models:\n"
        "  - {model_role: memory_extraction, llm_model_name: m}\n"
    )
    loaded = config.load(
        path,
        {
            "MEMORY_EXTPROC__MEMORY__MILVUS__ADDRESS": "milvus:19530",
            "MEMORY_EXTPROC__MEMORY__DEFAULT_SIMILARITY_THRESHOLD": "0.5",
            "MEMORY_EXTPROC__MEMORY__AUTO_STORE": "false",
            "MEMORY_EXTPROC__MEMORY__EXTERNAL_MODELS__0__LLM_ENDPOINT__API_KEY": "12345",
            "MEMORY_EXTPROC__SERVER__GRPC_PORT": "50052",
            "MEMORY_EXTPROC__MEMORY__RETRIEVAL__EXCLUDED_MODELS": "[gpt-tiny, embed-1]",
            "UNRELATED": "ignored",
        },
    )
    assert loaded.memory.milvus.address == "milvus:19530"
    assert loaded.memory.default_similarity_threshold == 0.5
    assert loaded.memory.auto_store is False
    assert loaded.memory.external_models[0].llm_endpoint.api_key == "12345"  # stays a string
    assert loaded.memory.external_models[0].llm_model_name == "m"  # the rest of the file stays
    assert loaded.server.grpc_port == 50052
    assert loaded.memory.retrieval.excluded_models == ["gpt-tiny", "embed-1"]


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("MEMORY_EXTPROC__MEMORY__MILVUS__ADRESS", "x", "did you mean 'address'?"),
        ("MEMORY_EXTPROC__SERVER__GRPC_PORT", "lots", "expected an integer"),
        ("MEMORY_EXTPROC__SERVER__GRPC_PORT", "70000", "out of range"),
        ("MEMORY_EXTPROC__MEMORY__ENABLED__X", "1", "memory.enabled.x is not a key of a section"),
        (
            "MEMORY_EXTPROC__MEMORY__EXTERNAL_MODELS__3__LLM_MODEL_NAME",
            "m",
            "not an entry of the file's list",
        ),
    ],
)
def test_environment_mistakes_name_the_variable(variable: str, value: str, message: str) -> None:
    with pytest.raises(config.ConfigError) as error:
        config.load(None, {"MEMORY_EXTPROC__MEMORY__ENABLED": "true", variable: value})
    assert message in str(error.value)
    assert variable in str(error.value)


BROKEN = """\
memory:
  milvus: {adress: "milvus:19530"}
  default_similarity_threshold: 3
  embedding: {precision: fp16}
  external_models:
    - {model_role: chat, llm_endpoint: {port: eighty}}
    - 5
    - {model_role: memory_extraction, llm_model_name: m}
server: {grpc_port: lots}
colour: blue
"""


def test_config_check_lists_every_error_of_a_file_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    environ = {"MEMORY_EXTPROC__SERVER__ADMIN_PORT": "70000"}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in environ.items():
            patch.setenv(name, value)
        assert cli.main(["config", "check", str(path)]) == 2
    printed = capsys.readouterr().err
    expected = [
        "memory.milvus.adress: unknown key (did you mean 'address'?)",
        "memory.default_similarity_threshold: 3.0 is out of range [-1, 1]",
        "memory.embedding.precision: 'fp16' is not one of int8, float",
        "memory.external_models[0].model_role: 'chat' is not one of",
        "memory.external_models[0].llm_endpoint.port: expected an integer, got str 'eighty'",
        "memory.external_models[1]: expected a mapping, got int 5",
        "server.grpc_port: expected an integer, got str 'lots'",
        "server.admin_port (from MEMORY_EXTPROC__SERVER__ADMIN_PORT): 70000 is out of range",
        "colour: unknown key",
    ]
    for problem in expected:
        assert problem in printed
    assert printed.startswith(f"configuration: {len(expected)} errors")
    assert printed.count("\n  - ") == len(expected)


def test_one_entry_per_model_role() -> None:
    model = {"model_role": "memory_extraction", "llm_model_name": "m"}
    with pytest.raises(config.ConfigError, match="two entries for model_role 'memory_extraction'"):
        config.parse({"memory": {"external_models": [model, model]}})


def test_a_model_without_its_role_is_refused_and_a_wrong_key_is_named_once() -> None:
    with pytest.raises(config.ConfigError) as error:
        config.parse({"memory": {"external_models": [{"llm_model_name": "m"}]}})
    assert error.value.problems == [
        "memory.external_models[0].model_role: missing (one of memory_extraction, memory_rewrite)"
    ]
    with pytest.raises(config.ConfigError) as error:
        config.parse(
            {
                "memory": {
                    "external_models": [{"model_role": "chat"}, {"model_role": "x"}],
                    "extraction": {"min_fact_chars": 600, "max_fact_chars": "y"},
                }
            }
        )
    assert len(error.value.problems) == 3, error.value.problems  # not "two entries for ''"


@pytest.mark.parametrize("damage", ["random bytes", "missing"])
def test_a_damaged_embedding_model_is_one_clear_error_at_start(
    tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model.onnx"
    if damage == "random bytes":
        model.write_bytes(bytes(range(256)) * 64)
    path = tmp_path / "config.yaml"
    path.write_text(f"memory:\n  embedding: {{model_path: '{model}'}}\n")
    assert cli.main(["-c", str(path), "serve"]) == 2
    said = capsys.readouterr().err
    assert said.startswith("embedding model: ")
    assert "Traceback" not in said
