"""The gRPC adapter between Envoy's ext_proc protocol and the memory pipeline."""
