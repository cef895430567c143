#include "connectors/env_connector.hpp"

#include "connectors/open_files.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"
#include "core/sys/deadline.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>

namespace distbench::connectors {
namespace {

// How long a leaving rank waits for the others' goodbyes, and an aborting one for its news to leave.
constexpr double kFinishSeconds = 30.0;
constexpr auto kAbortGrace = std::chrono::seconds(2);
constexpr double kReplyGraceSeconds = 5.0;
constexpr auto kLeaveToTheEvent = std::chrono::seconds(5);

std::vector<std::byte> pack(const std::vector<std::vector<std::byte>>& parts) {
  std::vector<std::uint64_t> sizes{parts.size()};
  for (const auto& p : parts) sizes.push_back(p.size());
  std::vector<std::byte> out(sizes.size() * sizeof(std::uint64_t));
  std::memcpy(out.data(), sizes.data(), out.size());
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::optional<std::vector<std::vector<std::byte>>> unpack(const std::vector<std::byte>& in, std::size_t count) {
  const std::size_t head = (count + 1) * sizeof(std::uint64_t);
  if (in.size() < head) return std::nullopt;
  std::vector<std::uint64_t> sizes(count + 1);
  std::memcpy(sizes.data(), in.data(), head);
  if (sizes[0] != count) return std::nullopt;
  std::size_t at = head;
  std::vector<std::vector<std::byte>> out;
  for (std::size_t i = 1; i <= count; ++i) {
    if (sizes[i] > in.size() - at) return std::nullopt;
    out.emplace_back(in.begin() + static_cast<std::ptrdiff_t>(at),
                     in.begin() + static_cast<std::ptrdiff_t>(at + sizes[i]));
    at += sizes[i];
  }
  if (at != in.size()) return std::nullopt;
  return out;
}

}  // namespace

EnvConnector::EnvConnector(const EnvSettings& settings, double timeout_s) : settings_(settings), timeout_s_(timeout_s) {
  ensure_open_files(settings_.rank, settings_.world_size);  // before the first socket: a link a peer
  Joined joined = rendezvous(settings_, timeout_s_);
  ranks_ = std::move(joined.ranks);
  std::vector<std::string> hosts;
  for (const auto& e : ranks_) {
    const auto it = std::find(hosts.begin(), hosts.end(), e.host);
    node_of_ranks_.push_back(static_cast<int>(it - hosts.begin()));
    if (it == hosts.end()) hosts.push_back(e.host);
  }
  sent_to_.assign(ranks_.size(), 0);
  received_from_.assign(ranks_.size(), 0);
  exchange_ =
      std::make_unique<Exchange>(settings_.rank, std::move(joined.links), [this](const PeerEvent& e) { on_event(e); });
}

EnvConnector::~EnvConnector() {
  set_failure_handler(nullptr);
  exchange_->finish(deadline_after(std::min(timeout_s_, kFinishSeconds)));
  exchange_.reset();
}

std::string EnvConnector::launch_description() const {
  return fmt::format("env:// rendezvous at {}:{} {}", settings_.master_addr, settings_.port, launch_origin(settings_));
}

int EnvConnector::local_rank() const { return ranks_[static_cast<std::size_t>(settings_.rank)].local_rank; }
int EnvConnector::local_size() const { return ranks_[static_cast<std::size_t>(settings_.rank)].local_size; }
std::string EnvConnector::hostname() const { return ranks_[static_cast<std::size_t>(settings_.rank)].host; }

std::string EnvConnector::name_of(int rank) const {
  return fmt::format("rank {} ({})", rank, ranks_[static_cast<std::size_t>(rank)].host);
}

EnvConnector::Deadline EnvConnector::job_deadline() const { return deadline_after(timeout_s_); }

EnvConnector::Deadline EnvConnector::reply_deadline() const { return deadline_after(timeout_s_ + kReplyGraceSeconds); }

void EnvConnector::check_rank(int r, const char* what) const {
  if (r < 0 || r >= size()) throw failure(fmt::format("{}: rank {} is outside the job's {} ranks", what, r, size()));
}

void EnvConnector::post(int peer, Channel channel, std::uint64_t sequence, std::span<const std::byte> data) {
  exchange_->post(peer, {FrameType::data, channel, sequence, 0}, data);
}

std::vector<std::byte> EnvConnector::receive(int peer, Channel channel, std::uint64_t sequence, Deadline deadline,
                                             const char* what) {
  std::vector<std::byte> out;
  switch (exchange_->take(peer, channel, sequence, deadline, out)) {
    case Exchange::Taken::ok: return out;
    case Exchange::Taken::timed_out:
      throw Error(ExitCode::timeout, fmt::format("{}: {} sent nothing in time (-T/--timeout {:g} s or the call's own "
                                                 "deadline)",
                                                 what, name_of(peer), timeout_s_));
    case Exchange::Taken::gone: break;
  }
  // The exchange has seen the peer go and reports it (on_event ends this process with the job's one line): leave
  // the word to it, and throw only should it not come.
  std::this_thread::sleep_for(kLeaveToTheEvent);
  throw failure(fmt::format("{}: {} has left the job", what, name_of(peer)));
}

void EnvConnector::barrier(const ArmedStep&) {
  const std::uint64_t seq = collective_calls_++;
  if (rank() != 0) {
    post(0, Channel::collective, seq, {});
    receive(0, Channel::collective, seq, reply_deadline(), "barrier");
    return;
  }
  const Deadline deadline = job_deadline();
  for (int r = 1; r < size(); ++r) receive(r, Channel::collective, seq, deadline, "barrier");
  for (int r = 1; r < size(); ++r) post(r, Channel::collective, seq, {});
}

void EnvConnector::broadcast(std::span<std::byte> data, int root, const ArmedStep&) {
  check_rank(root, "broadcast");
  const std::uint64_t seq = collective_calls_++;
  if (rank() == root) {
    for (int r = 0; r < size(); ++r) {
      if (r != root) post(r, Channel::collective, seq, data);
    }
    return;
  }
  const auto got = receive(root, Channel::collective, seq, reply_deadline(), "broadcast");
  if (got.size() != data.size()) {
    throw failure(
        fmt::format("broadcast: {} sent {} bytes, this rank expected {}", name_of(root), got.size(), data.size()));
  }
  std::copy(got.begin(), got.end(), data.begin());
}

std::vector<std::vector<std::byte>> EnvConnector::gather(std::span<const std::byte> data, int root, const ArmedStep&) {
  check_rank(root, "gather");
  const std::uint64_t seq = collective_calls_++;
  if (rank() != root) {
    post(root, Channel::collective, seq, data);
    return {};
  }
  const Deadline deadline = job_deadline();
  std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(size()));
  for (int r = 0; r < size(); ++r) {
    out[static_cast<std::size_t>(r)] = r == root ? std::vector<std::byte>(data.begin(), data.end())
                                                 : receive(r, Channel::collective, seq, deadline, "gather");
  }
  return out;
}

std::vector<std::vector<std::byte>> EnvConnector::allgather(std::span<const std::byte> data, const ArmedStep&) {
  const std::uint64_t seq = collective_calls_++;
  const auto count = static_cast<std::size_t>(size());
  if (rank() != 0) {
    post(0, Channel::collective, seq, data);
    auto parts = unpack(receive(0, Channel::collective, seq, reply_deadline(), "allgather"), count);
    if (!parts) throw failure(fmt::format("allgather: {} sent a malformed result", name_of(0)));
    return std::move(*parts);
  }
  const Deadline deadline = job_deadline();
  std::vector<std::vector<std::byte>> out(count);
  out[0].assign(data.begin(), data.end());
  for (int r = 1; r < size(); ++r)
    out[static_cast<std::size_t>(r)] = receive(r, Channel::collective, seq, deadline, "allgather");
  const auto packed = pack(out);
  for (int r = 1; r < size(); ++r) post(r, Channel::collective, seq, packed);
  return out;
}

std::vector<std::optional<std::vector<std::byte>>> EnvConnector::gather_until(std::span<const std::byte> data, int root,
                                                                              Deadline deadline) {
  check_rank(root, "gather_until");
  const std::uint64_t seq = bounded_calls_++;
  if (rank() != root) {
    const auto ticket = exchange_->post(root, {FrameType::data, Channel::bounded, seq, 0}, data);
    if (!exchange_->wait_written(root, ticket, deadline)) {
      throw Error(ExitCode::timeout, fmt::format("gather_until: {} took nothing before the deadline", name_of(root)));
    }
    return {};
  }
  std::vector<std::optional<std::vector<std::byte>>> out(static_cast<std::size_t>(size()));
  for (int r = 0; r < size(); ++r) {
    if (r == root) {
      out[static_cast<std::size_t>(r)].emplace(data.begin(), data.end());
      continue;
    }
    std::vector<std::byte> got;
    if (exchange_->take(r, Channel::bounded, seq, deadline, got) == Exchange::Taken::ok) {
      out[static_cast<std::size_t>(r)] = std::move(got);
    }
  }
  return out;
}

void EnvConnector::broadcast_until(std::vector<std::byte>& data, int root, Deadline deadline) {
  check_rank(root, "broadcast_until");
  const std::uint64_t seq = bounded_calls_++;
  if (rank() == root) {
    std::vector<std::pair<int, std::uint64_t>> sent;
    for (int r = 0; r < size(); ++r) {
      if (r != root) sent.emplace_back(r, exchange_->post(r, {FrameType::data, Channel::bounded, seq, 0}, data));
    }
    for (const auto& [peer, ticket] : sent) exchange_->wait_written(peer, ticket, deadline);
    return;
  }
  data = receive(root, Channel::bounded, seq, deadline, "broadcast_until");
}

void EnvConnector::send_until(int peer, std::span<const std::byte> data, Deadline deadline) {
  check_rank(peer, "send_until");
  if (peer == rank()) {
    to_self_.send(data);
    return;
  }
  const std::uint64_t seq = sent_to_[static_cast<std::size_t>(peer)]++;
  const auto ticket = exchange_->post(peer, {FrameType::data, Channel::point_to_point, seq, 0}, data);
  if (!exchange_->wait_written(peer, ticket, deadline)) {
    throw Error(ExitCode::timeout, fmt::format("send_until: {} took nothing before the deadline", name_of(peer)));
  }
}

std::vector<std::byte> EnvConnector::receive_until(int peer, Deadline deadline) {
  check_rank(peer, "receive_until");
  if (peer == rank()) return to_self_.receive(deadline);
  const std::uint64_t seq = received_from_[static_cast<std::size_t>(peer)]++;
  return receive(peer, Channel::point_to_point, seq, deadline, "receive_until");
}

void EnvConnector::abort(int exit_code, const std::string& reason) {
  exchange_->broadcast_abort(exit_code, reason, std::chrono::steady_clock::now() + kAbortGrace);
  std::_Exit(exit_code);
}

void EnvConnector::set_failure_handler(FailureHandler handler) {
  std::lock_guard lock(handler_mutex_);
  handler_ = std::move(handler);
}

void EnvConnector::on_event(const PeerEvent& event) {
  std::string message;
  int code = event.exit_code;
  if (event.kind == PeerEvent::Kind::aborted) {
    // That rank printed its own error line; this one says whose word ends it, over which connection (every link is
    // one the rendezvous proved), and leaves with a goodbye.
    message = fmt::format("{} ended the job (exit {}, its word over the connection from {}): {}",
                          name_of(event.peers.front()), code, event.remote, excerpt(event.reason, 400));
    fmt::print(stderr, "error: {}: {}\n", escape_text(name_of(rank())), escape_text(message));
    std::fflush(stderr);
    exchange_->leave_now(false, code, message);
  } else {
    code = static_cast<int>(ExitCode::failure);
    std::vector<std::string> names;
    for (int p : event.peers) names.push_back(name_of(p));
    message = fmt::format(
        "{} left the job without a goodbye ({}: it died, was killed, or its host went away); "
        "ending this rank",
        fmt::join(names, ", "), event.reason);
    // Each process says what it saw, in one line. The lowest rank that is still here speaks for the job: it tells
    // the others why; they leave saying only goodbye, so that nobody takes their leaving for another loss.
    int lowest = 0;
    while (std::find(event.peers.begin(), event.peers.end(), lowest) != event.peers.end()) ++lowest;
    const bool lead = lowest == rank();
    fmt::print(stderr, "error: {}: {}\n", escape_text(name_of(rank())), escape_text(message));
    std::fflush(stderr);
    exchange_->leave_now(lead, code, message);
  }
  std::lock_guard lock(handler_mutex_);
  if (handler_) handler_(message, code);
  std::_Exit(code);
}

}  // namespace distbench::connectors
