"""Replay of widget fetches across replicas; latency and throughput probes."""
