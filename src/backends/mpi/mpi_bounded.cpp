#include "backends/mpi/mpi_bounded.hpp"

#include "backends/mpi/mpi_types.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <thread>

namespace distbench::mpi {
namespace {

// Tags below this are left to other point-to-point traffic the connector's communicator may carry one day (today
// it carries collectives only, which use no tags). MPI promises tags up to at least 32767: 15872 calls of each
// sequence before the tags wrap around, far more than any message can stay late.
constexpr int kFirstTag = 1024;
constexpr int kGuaranteedTagUb = 32767;

// A process that finds itself this long between two polls was away (stopped, or its host starved it).
constexpr auto kAway = std::chrono::milliseconds(100);
// How long it goes on polling past the deadline when the deadline passed while it was away, or before the call:
// what the others sent meanwhile is here, but one poll only starts receiving it (Open MPI's first probe after a
// while may match nothing that has arrived).
constexpr auto kCatchUp = std::chrono::milliseconds(20);

// Calls `finished` until it answers true or `deadline` passes; when the deadline passed before the call or while
// this process was away, for kCatchUp more, so that what has already arrived counts. Yields between polls for the
// first 200 us (a reply that is on its way), then sleeps, 50 us growing to 1 ms: a rank that waits long for a slow
// or stopped one must leave the cores to the ranks still measuring (they may share them).
template <typename Finished>
bool poll_until(BoundedMessages::Deadline deadline, Finished finished) {
  using namespace std::chrono_literals;
  const auto began = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> last;  // the previous poll
  bool caught_up = false;
  auto nap = std::chrono::microseconds(50);
  for (;;) {
    if (finished()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline && !caught_up && (!last || now - *last > kAway)) {
      deadline = now + kCatchUp;
      caught_up = true;
    }
    if (now >= deadline) return false;
    last = now;
    if (now - began < 200us) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(nap, deadline - now));
      nap = std::min(nap * 2, std::chrono::microseconds(1000));
    }
  }
}

// Tests `request` (MPI_REQUEST_NULL once complete); true when complete.
bool test(MPI_Request& request) {
  if (request == MPI_REQUEST_NULL) return true;
  int done = 0;
  check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}

}  // namespace

// One message from a source with a tag, received without blocking and without knowing its size: a matched probe
// takes exactly that message off the queue, and MPI_Imrecv receives it into a buffer of its size. (A probe followed
// by a blocking MPI_Recv would wait for a large message's data, which a stopped sender never sends.)
class BoundedMessages::Incoming {
 public:
  Incoming(int source, int tag) : source_(source), tag_(tag) {}

  // Makes progress; true once the whole message is here.
  bool poll(MPI_Comm comm) {
    if (!matched_) {
      int found = 0;
      MPI_Message message = MPI_MESSAGE_NULL;
      MPI_Status status;
      check(MPI_Improbe(source_, tag_, comm, &found, &message, &status), "MPI_Improbe");
      if (!found) return false;
      int count = 0;
      check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
      buffer_->resize(static_cast<std::size_t>(count));
      check(MPI_Imrecv(buffer_->data(), count, MPI_BYTE, &message, &request_), "MPI_Imrecv");
      matched_ = true;
    }
    return test(request_);
  }

  std::vector<std::byte> take() { return std::move(*buffer_); }

  // A message matched but not yet complete is left to MPI with its buffer; one never matched costs nothing.
  void give_up(std::vector<Pending>& given_up) {
    if (matched_ && request_ != MPI_REQUEST_NULL) given_up.push_back({request_, buffer_});
    request_ = MPI_REQUEST_NULL;
  }

 private:
  int source_;
  int tag_;
  bool matched_ = false;
  MPI_Request request_ = MPI_REQUEST_NULL;
  std::shared_ptr<std::vector<std::byte>> buffer_ = std::make_shared<std::vector<std::byte>>();
};

BoundedMessages::BoundedMessages(MPI_Comm comm, int rank, int size)
    : comm_(comm),
      rank_(rank),
      size_(size),
      sent_to_(static_cast<std::size_t>(size), 0),
      received_from_(static_cast<std::size_t>(size), 0) {
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  const int highest = found && tag_ub != nullptr ? std::max(*tag_ub, kGuaranteedTagUb) : kGuaranteedTagUb;
  tag_slots_ = (highest - kFirstTag + 1) / 2;
}

int BoundedMessages::tag_of(std::uint64_t sequence, int kind) const {
  return kFirstTag + 2 * static_cast<int>(sequence % static_cast<std::uint64_t>(tag_slots_)) + kind;
}

void BoundedMessages::check_rank(int r, const char* what, const char* role) const {
  if (r < 0 || r >= size_) throw failure(fmt::format("{}: {} {} is not a rank of 0..{}", what, role, r, size_ - 1));
}

void BoundedMessages::reap() {
  // A failed test leaves the message where it is: MPI may still use its buffer.
  std::erase_if(given_up_, [](Pending& p) {
    int done = 0;
    return MPI_Test(&p.request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done != 0;
  });
}

void BoundedMessages::release_requests() noexcept {
  for (auto& p : given_up_) {
    if (p.request != MPI_REQUEST_NULL) MPI_Request_free(&p.request);
  }
}

void BoundedMessages::start_send(const std::shared_ptr<std::vector<std::byte>>& buffer, int peer, int tag,
                                 std::vector<Pending>& out) {
  Pending& p = out.emplace_back(Pending{MPI_REQUEST_NULL, buffer});
  check(MPI_Isend(buffer->data(), checked_int(buffer->size()), MPI_BYTE, peer, tag, comm_, &p.request), "MPI_Isend");
}

void BoundedMessages::send_copy(std::span<const std::byte> data, int peer, int tag, Deadline deadline,
                                const char* what) {
  // A copy, because the send may outlive this call when it cannot leave in time.
  auto copy = std::make_shared<std::vector<std::byte>>(data.begin(), data.end());
  std::vector<Pending> sends;
  start_send(copy, peer, tag, sends);
  if (poll_until(deadline, [&] { return test(sends.front().request); })) return;
  given_up_.push_back(std::move(sends.front()));
  throw Error(ExitCode::timeout, fmt::format("{}: rank {} could not send its {} bytes to rank {} by the deadline", what,
                                             rank_, data.size(), peer));
}

std::vector<std::byte> BoundedMessages::receive_one(int source, int tag, Deadline deadline, const char* what) {
  Incoming incoming(source, tag);
  if (poll_until(deadline, [&] { return incoming.poll(comm_); })) return incoming.take();
  incoming.give_up(given_up_);
  throw Error(ExitCode::timeout,
              fmt::format("{}: rank {} received nothing complete from rank {} by the deadline", what, rank_, source));
}

std::vector<std::optional<std::vector<std::byte>>> BoundedMessages::gather(std::span<const std::byte> data, int root,
                                                                           Deadline deadline) {
  check_rank(root, "gather_until", "root");
  reap();
  const int tag = next_collective_tag();
  if (rank_ != root) {
    send_copy(data, root, tag, deadline, "gather_until");
    return {};
  }
  std::vector<std::optional<std::vector<std::byte>>> out(static_cast<std::size_t>(size_));
  out[static_cast<std::size_t>(root)].emplace(data.begin(), data.end());
  std::vector<Incoming> incoming;
  incoming.reserve(out.size());
  for (int r = 0; r < size_; ++r) incoming.emplace_back(r, tag);
  int missing = size_ - 1;
  poll_until(deadline, [&] {
    for (std::size_t r = 0; r < out.size(); ++r) {
      if (out[r] || !incoming[r].poll(comm_)) continue;
      out[r] = incoming[r].take();
      --missing;
    }
    return missing == 0;
  });
  for (auto& in : incoming) in.give_up(given_up_);
  return out;
}

void BoundedMessages::broadcast(std::vector<std::byte>& data, int root, Deadline deadline) {
  check_rank(root, "broadcast_until", "root");
  reap();
  const int tag = next_collective_tag();
  if (rank_ != root) {
    data = receive_one(root, tag, deadline, "broadcast_until");
    return;
  }
  // One copy for every send: it outlives this call for the ranks that do not take it in time.
  auto copy = std::make_shared<std::vector<std::byte>>(data);
  std::vector<Pending> sends;
  for (int r = 0; r < size_; ++r) {
    if (r != root) start_send(copy, r, tag, sends);
  }
  poll_until(deadline,
             [&] { return std::all_of(sends.begin(), sends.end(), [](Pending& p) { return test(p.request); }); });
  for (auto& p : sends) {
    if (p.request != MPI_REQUEST_NULL) given_up_.push_back(std::move(p));
  }
}

void BoundedMessages::send(int peer, std::span<const std::byte> data, Deadline deadline) {
  check_rank(peer, "send_until", "peer");
  reap();
  send_copy(data, peer, tag_of(sent_to_[static_cast<std::size_t>(peer)]++, 1), deadline, "send_until");
}

std::vector<std::byte> BoundedMessages::receive(int peer, Deadline deadline) {
  check_rank(peer, "receive_until", "peer");
  reap();
  return receive_one(peer, tag_of(received_from_[static_cast<std::size_t>(peer)]++, 1), deadline, "receive_until");
}

}  // namespace distbench::mpi
