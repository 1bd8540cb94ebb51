#pragma once
/// Loopback sockets for the test servers: a port nobody listens on now, and a connected
/// socket with a receive timeout.
namespace merlin::testing {

/// A port nobody listens on right now: bind to 0, read it, close. Another process may take it
/// before the server does; the servers retry or fail loudly.
int free_port();

/// A socket connected to 127.0.0.1:`port` whose reads time out after `timeout_ms`; -1 when
/// nothing accepts. The caller closes it.
int connect_loopback(int port, int timeout_ms);

}  // namespace merlin::testing
