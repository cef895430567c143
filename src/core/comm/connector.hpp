// The Connector: the out-of-band world that sets up and coordinates the workers (RAF's Connector).
// Small host data only; bulk data moves through Communicators.
#pragma once

#include "core/sys/watchdog.hpp"

#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace distbench {

class Connector {
 public:
  virtual ~Connector() = default;

  // What formed the job: "mpi" (an MPI launcher, or MPI's singleton), "env" (torchrun-style env:// rendezvous over
  // TCP) or "none" (this process alone).
  virtual std::string_view kind() const = 0;
  // How the job was launched, in words, for `info` and reports ("env:// rendezvous at node1:29500 (MASTER_PORT)").
  virtual std::string launch_description() const = 0;
  // Settings of the job that its figures depend on, for reports and their headers (MPI's thread level).
  virtual std::vector<std::pair<std::string, std::string>> facts() const { return {}; }
  // The versions of the libraries the job runs on, cheap to read (health's drift phase compares them across nodes):
  // MPI's library version. Empty by default.
  virtual std::vector<std::pair<std::string, std::string>> library_versions() const { return {}; }

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // rank among the processes of this node
  virtual int local_size() const = 0;  // processes on this node
  virtual int root_rank() const = 0;   // the rank that coordinates and reports
  virtual std::string hostname() const = 0;
  // Node index of every rank (0 .. nodes-1, in order of each node's lowest rank).
  virtual std::vector<int> node_of_ranks() const = 0;

  // Collective coordination that waits on every rank without a deadline of its own: only inside an armed step
  // (`step`, core/sys/watchdog.hpp), whose watchdog ends the job when a rank stops answering.
  virtual void barrier(const ArmedStep& step) = 0;
  virtual void broadcast(std::span<std::byte> data, int root, const ArmedStep& step) = 0;
  // Every rank contributes `data` (sizes may differ); the root gets one entry per rank, others an empty vector.
  virtual std::vector<std::vector<std::byte>> gather(std::span<const std::byte> data, int root,
                                                     const ArmedStep& step) = 0;
  virtual std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> data, const ArmedStep& step) = 0;

  // Bounded coordination, for work that must survive ranks that stop answering (a stopped or hung process): no
  // call waits past its deadline. Every rank makes the same sequence of gather_until/broadcast_until calls, and
  // the k-th send_until from A to B meets B's k-th receive_until from A; a message that arrives after its call
  // gave up is never taken for a later call's. A rank that stops answering must therefore make its calls late, not
  // skip them. Deadlines are absolute: a rank that waits for what the root sends after its own bounded wait needs a
  // deadline past the root's.
  //
  // Every rank sends `data` to `root`. The root waits until `deadline` and gets one entry per rank (its own
  // included), std::nullopt for a rank whose data had not arrived by then. Other ranks get an empty vector once
  // their data has left; they throw Error(ExitCode::timeout, ...) when it cannot leave by `deadline`.
  virtual std::vector<std::optional<std::vector<std::byte>>> gather_until(
      std::span<const std::byte> data, int root, std::chrono::steady_clock::time_point deadline) = 0;
  // The root's `data` (any size) reaches every rank that still listens: non-roots replace `data` with it, waiting
  // until `deadline`, and throw Error(timeout) when nothing came. The root returns by `deadline` whatever the
  // others do.
  virtual void broadcast_until(std::vector<std::byte>& data, int root,
                               std::chrono::steady_clock::time_point deadline) = 0;
  // Point to point with a deadline (e.g. clock offset ping-pongs). Throw Error(timeout) past the deadline.
  // send_until returns once the data has left: small messages leave at once, a large one may wait for its receive
  // (as MPI_Send may), so a ring of large messages needs its sends and receives ordered.
  virtual void send_until(int peer, std::span<const std::byte> data,
                          std::chrono::steady_clock::time_point deadline) = 0;
  virtual std::vector<std::byte> receive_until(int peer, std::chrono::steady_clock::time_point deadline) = 0;

  // Ends every process of the job with `exit_code`; `reason` (this rank's error) reaches the others where the
  // connector carries it (env://; under MPI the launcher ends them). From the main thread only (MPI runs at
  // THREAD_FUNNELED).
  [[noreturn]] virtual void abort(int exit_code, const std::string& reason) = 0;

  // A connector that learns by itself that the job is broken (env://: a peer's abort, a peer gone without its
  // goodbye) calls the handler, on a thread of its own, with what happened and the exit code to leave with; the
  // handler marks the report and ends the process. With no handler set, the process ends with that code. Under MPI
  // the launcher ends the job instead, and no handler is ever called.
  using FailureHandler = std::function<void(const std::string& message, int exit_code)>;
  virtual void set_failure_handler(FailureHandler handler) { (void)handler; }

  bool is_root() const { return rank() == root_rank(); }
};

// Typed helpers over the byte interface, for trivially copyable values.
template <typename T>
std::vector<T> allgather_value(Connector& c, const T& value, const ArmedStep& step) {
  static_assert(std::is_trivially_copyable_v<T>);
  auto parts = c.allgather(std::as_bytes(std::span(&value, 1)), step);
  std::vector<T> out(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) std::memcpy(&out[i], parts[i].data(), sizeof(T));
  return out;
}

template <typename T>
std::vector<std::vector<T>> gather_vector(Connector& c, std::span<const T> values, int root, const ArmedStep& step) {
  static_assert(std::is_trivially_copyable_v<T>);
  auto parts = c.gather(std::as_bytes(values), root, step);
  std::vector<std::vector<T>> out(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out[i].resize(parts[i].size() / sizeof(T));
    if (!parts[i].empty()) std::memcpy(out[i].data(), parts[i].data(), parts[i].size());
  }
  return out;
}

template <typename T>
void broadcast_value(Connector& c, T& value, int root, const ArmedStep& step) {
  static_assert(std::is_trivially_copyable_v<T>);
  c.broadcast(std::as_writable_bytes(std::span(&value, 1)), root, step);
}

void broadcast_string(Connector& c, std::string& text, int root, const ArmedStep& step);
std::vector<std::string> allgather_string(Connector& c, const std::string& text, const ArmedStep& step);
// The string forms of gather_until and broadcast_until.
std::vector<std::optional<std::string>> gather_strings_until(Connector& c, const std::string& text, int root,
                                                             std::chrono::steady_clock::time_point deadline);
void broadcast_string_until(Connector& c, std::string& text, int root, std::chrono::steady_clock::time_point deadline);

}  // namespace distbench

namespace distbench {
class Error;
// Collective: every rank passes what its own check found; when any rank found a problem, every rank throws the
// problem of the lowest such rank (same message, same exit code), so that all ranks leave the same way.
void raise_if_any(Connector& c, const Error* local, const ArmedStep& step);
}  // namespace distbench
