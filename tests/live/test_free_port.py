"""The loopback ports the tests and the benches start their servers on."""

import socket

from tests import servers


def bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_a_server_port_is_free_outside_the_range_of_outgoing_connections_and_never_handed_out_twice(monkeypatch):
    """No connection the kernel opens meanwhile can take the port before the server binds it."""
    monkeypatch.setattr(servers, "ephemeral_ports", lambda: range(32768, 61000))  # Linux's default
    ports = [servers.free_port() for _ in range(50)]
    assert len(set(ports)) == len(ports)
    assert all(20000 <= port < 32768 for port in ports)
    assert all(bindable(port) for port in ports[:5])  # free: a server can listen there


def test_a_range_that_covers_the_preferred_ports_hands_out_the_ports_above_it_first(monkeypatch):
    monkeypatch.setattr(servers, "ephemeral_ports", lambda: range(10000, 40000))
    ports = [servers.free_port() for _ in range(20)]
    assert len(set(ports)) == len(ports) and all(port >= 40000 for port in ports)


def test_a_range_that_leaves_no_port_above_it_hands_out_ports_below_it(monkeypatch):
    monkeypatch.setattr(servers, "ephemeral_ports", lambda: range(10000, 65536))
    ports = [servers.free_port() for _ in range(20)]
    assert len(set(ports)) == len(ports) and all(1024 <= port < 10000 and bindable(port) for port in ports)


def test_where_the_ephemeral_range_covers_every_port_the_kernel_chooses_and_never_the_same_twice(monkeypatch):
    monkeypatch.setattr(servers, "ephemeral_ports", lambda: range(1024, 65536))
    ports = [servers.free_port() for _ in range(20)]
    assert len(set(ports)) == len(ports) and all(port >= 1024 and bindable(port) for port in ports)
