#include "connectors/socket.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

namespace distbench::connectors {
namespace {

Status failed(int error, std::string what) { return {error, fmt::format("{}: {}", what, std::strerror(error)), false}; }

void set_nodelay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// Binds a new socket to `address` (its family's wildcard address when null) at `port` and listens.
Socket listen_on(int family, const sockaddr* address, socklen_t length, int port, Status& status) {
  Socket s(socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!s.valid()) {
    status = failed(errno, "socket");
    return {};
  }
  const int one = 1;
  setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));  // a port in TIME_WAIT, not one in use
  if (family == AF_INET6) {
    // The wildcard takes IPv4 too; a given address is that address alone.
    const int v6_only = address != nullptr ? 1 : 0;
    setsockopt(s.fd(), IPPROTO_IPV6, IPV6_V6ONLY, &v6_only, sizeof(v6_only));
  }
  int rc = 0;
  if (address != nullptr) {
    rc = bind(s.fd(), address, length);
  } else if (family == AF_INET6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(static_cast<std::uint16_t>(port));
    rc = bind(s.fd(), reinterpret_cast<sockaddr*>(&a), sizeof(a));
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    rc = bind(s.fd(), reinterpret_cast<sockaddr*>(&a), sizeof(a));
  }
  if (rc != 0) {
    status = failed(errno, fmt::format("listen on port {}", port));
    return {};
  }
  if (listen(s.fd(), SOMAXCONN) != 0) {
    status = failed(errno, fmt::format("listen on port {}", port));
    return {};
  }
  status = {};
  return s;
}

}  // namespace

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

int Socket::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void Socket::reset() noexcept {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

Socket listen_tcp(int port, Status& status) {
  Socket s = listen_on(AF_INET6, nullptr, 0, port, status);
  // No IPv6 on this host (or in this namespace): IPv4 alone. A port in use is in use for both.
  if (!s.valid() && status.error != EADDRINUSE) s = listen_on(AF_INET, nullptr, 0, port, status);
  return s;
}

Socket listen_tcp(const std::string& address, int port, Status& status) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = getaddrinfo(address.c_str(), service.c_str(), &hints, &found); rc != 0 || found == nullptr) {
    status = {EADDRNOTAVAIL, fmt::format("listen on {}: {}", address, rc != 0 ? gai_strerror(rc) : "no address"),
              false};
    return {};
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> list(found, freeaddrinfo);
  return listen_on(found->ai_family, found->ai_addr, found->ai_addrlen, port, status);
}

std::vector<std::string> addresses_of(const std::string& host, Status& status) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0) {
    status = {EHOSTUNREACH, fmt::format("look up {}: {}", host, gai_strerror(rc)), false};
    return {};
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> list(found, freeaddrinfo);
  std::vector<std::string> out;
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    std::array<char, INET6_ADDRSTRLEN> text{};
    const void* raw = ai->ai_family == AF_INET6
                          ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(ai->ai_addr)->sin6_addr)
                          : static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(ai->ai_addr)->sin_addr);
    if (inet_ntop(ai->ai_family, raw, text.data(), text.size()) == nullptr) continue;
    if (std::find(out.begin(), out.end(), text.data()) == out.end()) out.emplace_back(text.data());
  }
  status = {};
  return out;
}

bool is_loopback(const std::string& address) {
  in_addr four{};
  if (inet_pton(AF_INET, address.c_str(), &four) == 1) return (ntohl(four.s_addr) >> 24) == 127;
  in6_addr six{};
  if (inet_pton(AF_INET6, address.c_str(), &six) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&six)) return true;
  return IN6_IS_ADDR_V4MAPPED(&six) && six.s6_addr[12] == 127;
}

int local_port(const Socket& socket) {
  sockaddr_storage a{};
  socklen_t n = sizeof(a);
  if (getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&a), &n) != 0) return 0;
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
}

namespace {

// The numeric address of `a`, IPv4 shown plainly even on an IPv6 socket.
std::string address_text(const sockaddr_storage& a) {
  std::array<char, INET6_ADDRSTRLEN> text{};
  if (a.ss_family == AF_INET6) {
    const auto* six = reinterpret_cast<const sockaddr_in6*>(&a);
    if (IN6_IS_ADDR_V4MAPPED(&six->sin6_addr)) {
      inet_ntop(AF_INET, &six->sin6_addr.s6_addr[12], text.data(), text.size());
    } else {
      inet_ntop(AF_INET6, &six->sin6_addr, text.data(), text.size());
    }
  } else {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&a)->sin_addr, text.data(), text.size());
  }
  return text.data();
}

}  // namespace

std::string local_address(const Socket& socket) {
  sockaddr_storage a{};
  socklen_t n = sizeof(a);
  if (getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&a), &n) != 0) return {};
  return address_text(a);
}

std::string peer_address(const Socket& socket) {
  sockaddr_storage a{};
  socklen_t n = sizeof(a);
  if (getpeername(socket.fd(), reinterpret_cast<sockaddr*>(&a), &n) != 0) return {};
  return address_text(a);
}

std::string peer_endpoint(const Socket& socket) {
  sockaddr_storage a{};
  socklen_t n = sizeof(a);
  if (getpeername(socket.fd(), reinterpret_cast<sockaddr*>(&a), &n) != 0) return "(a closed connection)";
  const std::string address = address_text(a);
  const int port = a.ss_family == AF_INET6 ? ntohs(reinterpret_cast<const sockaddr_in6*>(&a)->sin6_port)
                                           : ntohs(reinterpret_cast<const sockaddr_in*>(&a)->sin_port);
  return address.find(':') != std::string::npos ? fmt::format("[{}]:{}", address, port)
                                                : fmt::format("{}:{}", address, port);
}

Socket connect_tcp(const std::string& host, int port, Deadline deadline, Status& status) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    status = {EHOSTUNREACH, fmt::format("look up {}: {}", host, gai_strerror(rc)), false};
    return {};
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> list(found, freeaddrinfo);
  status = {ECONNREFUSED, fmt::format("connect to {}:{}: no address", host, port), false};
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    Socket s(socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!s.valid()) {
      status = failed(errno, "socket");
      continue;
    }
    if (connect(s.fd(), ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
      status = failed(errno, fmt::format("connect to {}:{}", host, port));
      continue;
    }
    pollfd p{s.fd(), POLLOUT, 0};
    int ready = 0;
    while ((ready = poll(&p, 1, poll_timeout_ms(deadline))) == 0 && Clock::now() < deadline) {
    }
    if (ready <= 0) {
      status = {ETIMEDOUT, fmt::format("connect to {}:{}: no answer in time", host, port), true};
      continue;
    }
    int error = 0;
    socklen_t n = sizeof(error);
    getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &error, &n);
    if (error != 0) {
      status = failed(error, fmt::format("connect to {}:{}", host, port));
      continue;
    }
    set_nodelay(s.fd());
    status = {};
    return s;
  }
  return {};
}

Socket accept_tcp(const Socket& listener) {
  Socket s(accept4(listener.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (s.valid()) set_nodelay(s.fd());
  return s;
}

Status write_all(const Socket& socket, std::span<const std::byte> bytes, Deadline deadline) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = send(socket.fd(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return failed(errno, "send");
    if (Clock::now() >= deadline) return {ETIMEDOUT, "send: the other end took nothing in time", true};
    pollfd p{socket.fd(), POLLOUT, 0};
    poll(&p, 1, poll_timeout_ms(deadline, 200));
  }
  return {};
}

bool write_now(const Socket& socket, std::span<const std::byte> bytes) {
  const ssize_t n = send(socket.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  return n >= 0 && static_cast<std::size_t>(n) == bytes.size();
}

long read_some(const Socket& socket, std::span<std::byte> out, Status& status) {
  while (true) {
    const ssize_t n = recv(socket.fd(), out.data(), out.size(), 0);
    if (n >= 0) return static_cast<long>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return -1;
    status = failed(errno, "recv");
    return -2;
  }
}

bool wait_readable(const Socket& socket, Deadline deadline) {
  while (true) {
    pollfd p{socket.fd(), POLLIN, 0};
    if (poll(&p, 1, poll_timeout_ms(deadline)) > 0) return true;
    if (Clock::now() >= deadline) return false;
  }
}

int poll_timeout_ms(Deadline deadline, int cap_ms) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return static_cast<int>(std::min<long long>(left + 1, cap_ms));
}

std::string host_name() {
  std::array<char, 256> name{};
  gethostname(name.data(), name.size() - 1);
  return name.data();
}

}  // namespace distbench::connectors
