// The Connector of an env:// launch (torchrun, Kubernetes' PyTorchJob, Ray, ssh scripts): the out-of-band world
// over TCP, for jobs that no MPI launcher started. The rendezvous (rendezvous.hpp) connects every two ranks; the
// exchange (exchange.hpp) carries the connector's messages. Collectives go through rank 0 (they carry small
// coordination data; bulk data moves through a backend's communicators, e.g. NCCL's own bootstrap and transports).
//
// Every wait is bounded: the bounded calls by their deadlines, the others by the job's timeout (-T). A peer's abort
// or a peer gone without its goodbye ends this process too (see Connector::set_failure_handler), so nothing is left
// running; each process that ends so prints one error line: the peer it saw go, or the rank whose word ended the job
// and the connection that word came over (of the processes that see a peer go, the lowest surviving rank speaks for
// the job: the others follow its word).
#pragma once

#include "connectors/env_settings.hpp"
#include "connectors/exchange.hpp"
#include "connectors/self_messages.hpp"
#include "core/comm/connector.hpp"

#include <memory>
#include <mutex>

namespace distbench::connectors {

class EnvConnector final : public Connector {
 public:
  // Runs the rendezvous; throws Error (usage, timeout, failure) naming this rank and its host.
  EnvConnector(const EnvSettings& settings, double timeout_s);
  ~EnvConnector() override;
  EnvConnector(const EnvConnector&) = delete;
  EnvConnector& operator=(const EnvConnector&) = delete;

  std::string_view kind() const override { return "env"; }
  std::string launch_description() const override;
  int rank() const override { return settings_.rank; }
  int size() const override { return settings_.world_size; }
  int local_rank() const override;
  int local_size() const override;
  int root_rank() const override { return 0; }
  std::string hostname() const override;
  std::vector<int> node_of_ranks() const override { return node_of_ranks_; }

  void barrier(const ArmedStep& step) override;
  void broadcast(std::span<std::byte> data, int root, const ArmedStep& step) override;
  std::vector<std::vector<std::byte>> gather(std::span<const std::byte> data, int root, const ArmedStep& step) override;
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> data, const ArmedStep& step) override;
  std::vector<std::optional<std::vector<std::byte>>> gather_until(
      std::span<const std::byte> data, int root, std::chrono::steady_clock::time_point deadline) override;
  void broadcast_until(std::vector<std::byte>& data, int root, std::chrono::steady_clock::time_point deadline) override;
  void send_until(int peer, std::span<const std::byte> data, std::chrono::steady_clock::time_point deadline) override;
  std::vector<std::byte> receive_until(int peer, std::chrono::steady_clock::time_point deadline) override;
  [[noreturn]] void abort(int exit_code, const std::string& reason) override;
  void set_failure_handler(FailureHandler handler) override;

 private:
  using Deadline = std::chrono::steady_clock::time_point;

  std::string name_of(int rank) const;  // "rank 3 (node2)"
  Deadline job_deadline() const;
  // For a rank waiting on what rank 0 sends once its own wait is over: past rank 0's deadline, so that rank 0,
  // which knows who is missing, is the one that times out and says so.
  Deadline reply_deadline() const;
  void check_rank(int r, const char* what) const;
  void post(int peer, Channel channel, std::uint64_t sequence, std::span<const std::byte> data);
  // The frame, or Error(timeout) / failure (the peer left) naming `what` and the peer.
  std::vector<std::byte> receive(int peer, Channel channel, std::uint64_t sequence, Deadline deadline,
                                 const char* what);
  void on_event(const PeerEvent& event);  // the exchange's thread

  EnvSettings settings_;
  double timeout_s_;
  std::vector<RankEntry> ranks_;
  std::vector<int> node_of_ranks_;
  std::uint64_t collective_calls_ = 0;
  std::uint64_t bounded_calls_ = 0;
  std::vector<std::uint64_t> sent_to_;        // per peer: point-to-point sends made
  std::vector<std::uint64_t> received_from_;  // per peer: point-to-point receives made
  SelfMessages to_self_;
  std::mutex handler_mutex_;
  FailureHandler handler_;
  std::unique_ptr<Exchange> exchange_;  // last: its thread calls on_event, which reads the members above
};

}  // namespace distbench::connectors
