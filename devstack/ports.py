"""Free TCP ports on the loopback interface, for listeners started a moment later.

A port the kernel hands out for ``bind(0)`` comes from the ephemeral range, the same range it
draws from for every outgoing connection: between choosing such a port and the listener binding
it, any client socket (a gRPC channel to Milvus, an HTTP pool) may take it, and the listener
fails with "Address already in use". Ports are therefore chosen below (or above) that range,
where only explicit binds land, and never twice in one process.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

_EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_LOWEST = 10_000
_handed_out: set[int] = set()


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range for outgoing connections (Linux; the IANA range elsewhere)."""
    try:
        low, high = _EPHEMERAL_RANGE_FILE.read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 49_152, 65_535


def candidate_ports() -> list[int]:
    """Ports outside the ephemeral range, in random order (parallel runs rarely collide)."""
    low, high = ephemeral_range()
    ports = [*range(_LOWEST, max(_LOWEST, low)), *range(high + 1, 65_536)]
    random.shuffle(ports)
    return ports


def free_port() -> int:
    for port in candidate_ports():
        if port not in _handed_out and port_is_free(port):
            _handed_out.add(port)
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:  # the range covers all
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int) -> bool:
    """Free for a listener: connections still in TIME_WAIT on it do not count."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True
