// The Connector: the out-of-band world that sets up and coordinates the workers (RAF's Connector).
// Small host data only; bulk data moves through Communicators.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace distbench {

class Connector {
 public:
  virtual ~Connector() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // rank among the processes of this node
  virtual int local_size() const = 0;  // processes on this node
  virtual int root_rank() const = 0;   // the rank that coordinates and reports
  virtual std::string hostname() const = 0;
  // Node index of every rank (0 .. nodes-1, in order of each node's lowest rank).
  virtual std::vector<int> node_of_ranks() const = 0;

  virtual void barrier() = 0;
  virtual void broadcast(std::span<std::byte> data, int root) = 0;
  // Every rank contributes `data` (sizes may differ); the root gets one entry per rank, others an empty vector.
  virtual std::vector<std::vector<std::byte>> gather(std::span<const std::byte> data, int root) = 0;
  virtual std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> data) = 0;
  // Ends every process of the job with `exit_code`. From the main thread only (MPI runs at THREAD_FUNNELED).
  [[noreturn]] virtual void abort(int exit_code) = 0;

  bool is_root() const { return rank() == root_rank(); }
};

// Typed helpers over the byte interface, for trivially copyable values.
template <typename T>
std::vector<T> allgather_value(Connector& c, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  auto parts = c.allgather(std::as_bytes(std::span(&value, 1)));
  std::vector<T> out(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) std::memcpy(&out[i], parts[i].data(), sizeof(T));
  return out;
}

template <typename T>
std::vector<std::vector<T>> gather_vector(Connector& c, std::span<const T> values, int root) {
  static_assert(std::is_trivially_copyable_v<T>);
  auto parts = c.gather(std::as_bytes(values), root);
  std::vector<std::vector<T>> out(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out[i].resize(parts[i].size() / sizeof(T));
    if (!parts[i].empty()) std::memcpy(out[i].data(), parts[i].data(), parts[i].size());
  }
  return out;
}

template <typename T>
void broadcast_value(Connector& c, T& value, int root) {
  static_assert(std::is_trivially_copyable_v<T>);
  c.broadcast(std::as_writable_bytes(std::span(&value, 1)), root);
}

void broadcast_string(Connector& c, std::string& text, int root);
std::vector<std::string> allgather_string(Connector& c, const std::string& text);

}  // namespace distbench

namespace distbench {
class Error;
// Collective: every rank passes what its own check found; when any rank found a problem, every rank throws the
// problem of the lowest such rank (same message, same exit code), so that all ranks leave the same way.
void raise_if_any(Connector& c, const Error* local);
}  // namespace distbench
