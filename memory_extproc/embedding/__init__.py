"""Sentence embeddings for queries and memories (all-MiniLM-L6-v2, ONNX)."""

from memory_extproc.embedding.batcher import EmbeddingBatcher
from memory_extproc.embedding.model import ModelFiles, ModelIntegrityError, model_files
from memory_extproc.embedding.onnx import OnnxEmbedder

__all__ = [
    "EmbeddingBatcher",
    "ModelFiles",
    "ModelIntegrityError",
    "OnnxEmbedder",
    "model_files",
]
