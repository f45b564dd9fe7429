"""The loopback ports the tests and the benches start their servers on."""

import socket

from tests.servers import ephemeral_ports, free_port


def test_a_server_port_is_free_outside_the_range_of_outgoing_connections_and_never_handed_out_twice():
    """No connection the kernel opens meanwhile can take the port before the server binds it."""
    ports = [free_port() for _ in range(50)]
    assert len(set(ports)) == len(ports)
    ephemeral = ephemeral_ports()
    assert not any(port in ephemeral for port in ports)
    for port in ports[:5]:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))  # free: a server can listen there
