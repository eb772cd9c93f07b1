"""Runs the PyPI `milvus` standalone server on exactly the given port, until SIGTERM/SIGINT.

The package's own `milvus-server` command silently moves to the next port when the asked one is
busy, leaves its server running when it gets SIGTERM, and gives every instance the same embedded
etcd peer port (2380), so two instances on one machine crash; this wrapper does none of that.
"""

from __future__ import annotations

import argparse
import signal
import socket
import threading
from pathlib import Path

import yaml
from milvus import MilvusServer, MilvusServerConfig

from devstack.ports import free_port


class _Config(MilvusServerConfig):
    def try_bind_port(self, port: int) -> socket.socket | None:
        # as Milvus itself binds: a port with connections in TIME_WAIT is usable
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
        except OSError:
            sock.close()
            return None
        return sock

    def write_config(self) -> None:
        super().write_config()
        configs = Path(self.base_data_dir) / "configs"
        client, peer = (
            f"http://localhost:{self.get('etcd_port')}",
            f"http://localhost:{free_port()}",
        )
        etcd = {
            "name": "default",
            "listen-client-urls": client,
            "advertise-client-urls": client,
            "listen-peer-urls": peer,
            "initial-advertise-peer-urls": peer,
            "initial-cluster": f"default={peer}",
        }
        (configs / "embed-etcd.yaml").write_text(yaml.safe_dump(etcd))
        milvus_yaml = configs / "milvus.yaml"
        settings = yaml.safe_load(milvus_yaml.read_text())
        settings["etcd"]["config"] = {"path": str(configs / "embed-etcd.yaml")}
        # A killed instance leaves its session in etcd; the next start stalls (no time ticks, so
        # no Strong reads) until it expires: 30 s by default. But a live instance whose session
        # lapses exits, and 5 s was lapsed by one 5 s stall of the machine (make chaos pauses
        # Milvus on purpose): 10 s, a restart back within 30 s either way.
        settings["common"]["session"]["ttl"] = 10
        # After a restart Milvus replays its log from the last sync before a Strong read can
        # be served (and memory comes back): after 60 s of writes that took 64 s with the
        # default sync every 600 s; every 20 / 10 / 5 s: 18 / 5 / 6 s
        # (`make chaos`, bench/RESULTS.md).
        settings["dataNode"]["segment"]["syncPeriod"] = 10
        milvus_yaml.write_text(yaml.safe_dump(settings, sort_keys=False))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    server = MilvusServer(_Config(), wait_for_started=False)
    server.set_base_dir(args.data)
    server.config.configs.update(proxy_port=args.port)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server.start()
    try:
        while not stop.wait(0.5):
            if server.server_proc is None or server.server_proc.poll() is not None:
                raise SystemExit("milvus exited")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
