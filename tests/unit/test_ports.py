"""Ports for the dev stack's listeners stay clear of the range outgoing connections draw from."""

from __future__ import annotations

import socket

from devstack.ports import ephemeral_range, free_port, port_is_free


def test_free_ports_are_outside_the_ephemeral_range_and_never_handed_out_twice() -> None:
    low, high = ephemeral_range()
    ports = [free_port() for _ in range(50)]
    assert all(not low <= port <= high for port in ports)
    assert len(set(ports)) == len(ports)


def test_a_port_with_a_listener_is_not_free() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", free_port()))
        sock.listen()
        assert not port_is_free(sock.getsockname()[1])
