// TCP sockets for the env:// connector: an owned descriptor, a listener, a connection attempt and writes and reads
// that never wait past a deadline. Failures come back as values (the caller decides whether to retry, and how to
// word the error); nothing here prints.
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace distbench::connectors {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

// An owned file descriptor, closed once.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() { reset(); }
  Socket(Socket&& other) noexcept : fd_(other.release()) {}
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() noexcept;
  void reset() noexcept;

 private:
  int fd_ = -1;
};

// The outcome of a socket call: ok, or the errno it failed with and the call's words.
struct Status {
  int error = 0;           // errno; 0 when it worked
  std::string what;        // e.g. "connect to 10.0.0.1:29500: Connection refused"
  bool timed_out = false;  // the deadline passed first
  bool ok() const { return error == 0 && !timed_out; }
};

// A non-blocking listener on every address of this host (IPv6 and IPv4 where the host has IPv6, else IPv4) at
// `port` (0: a free port the system picks). `status.error` is EADDRINUSE when another process holds the port.
Socket listen_tcp(int port, Status& status);
// A non-blocking listener on one numeric address of this host ("127.0.0.1", "10.0.0.2", "fd00::2") at `port`.
// `status.error` is EADDRINUSE when another process holds the port, EADDRNOTAVAIL when the address is not this
// host's.
Socket listen_tcp(const std::string& address, int port, Status& status);
// The numeric addresses `host` (a name or a numeric address) has for TCP, in the resolver's order, each once;
// empty when it has none (`status` says why).
std::vector<std::string> addresses_of(const std::string& host, Status& status);
// Whether a numeric address is a loopback one (127.0.0.0/8, ::1, ::ffff:127.x.y.z).
bool is_loopback(const std::string& address);
// The port a socket is bound to.
int local_port(const Socket& socket);
// The numeric address a socket is bound to (a connected one: the address this host reaches the other end from).
std::string local_address(const Socket& socket);
// The numeric address of the other end ("10.0.0.2", "::1"), IPv4 shown plainly even on an IPv6 socket.
std::string peer_address(const Socket& socket);
// The other end as "10.0.0.2:41234" or "[fd00::2]:41234", for messages that name a connection.
std::string peer_endpoint(const Socket& socket);

// One attempt to connect to host:port (a name or numeric address; every address the name has is tried), until
// `deadline`. The socket comes back non-blocking, with TCP_NODELAY.
Socket connect_tcp(const std::string& host, int port, Deadline deadline, Status& status);
// A connection waiting on a non-blocking listener, non-blocking with TCP_NODELAY; invalid when none is waiting.
Socket accept_tcp(const Socket& listener);

// Writes all of `bytes` to a non-blocking socket, waiting while it is full, until `deadline`.
Status write_all(const Socket& socket, std::span<const std::byte> bytes, Deadline deadline);
// Writes what a non-blocking socket takes now, without waiting; true when all of `bytes` went. For what is sent to
// a process that has not proven who it is: nothing it does (not reading) can make the writer wait.
bool write_now(const Socket& socket, std::span<const std::byte> bytes);
// Reads what is there (at most `out.size()` bytes) from a non-blocking socket: the count, 0 at the end of the stream,
// -1 when nothing is there yet (EAGAIN), or -2 on an error (status says which).
long read_some(const Socket& socket, std::span<std::byte> out, Status& status);
// Waits until the socket is readable or `deadline`; false at the deadline.
bool wait_readable(const Socket& socket, Deadline deadline);

// Milliseconds from now to `deadline` for poll(): 0 when it has passed, at most `cap_ms`.
int poll_timeout_ms(Deadline deadline, int cap_ms = 1000);

// This host's name (gethostname).
std::string host_name();

}  // namespace distbench::connectors
