#include "cli/resolve_hosts.hpp"

#include "core/error.hpp"

#include <netdb.h>

#include <fmt/core.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace distbench {
namespace {

// The queue and the answers, shared by the caller and the pool; kept alive by the threads still in the resolver after
// the caller gave up.
struct LookupQueue {
  LookupQueue(std::vector<std::string> names, LookupFunction how)
      : hosts(std::move(names)), lookup(std::move(how)), codes(hosts.size()) {}

  const std::vector<std::string> hosts;
  const LookupFunction lookup;
  std::mutex mutex;
  std::condition_variable done;
  std::size_t next = 0;                   // the first name no thread has taken
  bool closed = false;                    // the caller stopped waiting: take no other name
  std::vector<std::optional<int>> codes;  // getaddrinfo's result per name, once it answered
  std::size_t answered = 0;
  std::vector<bool> ended;  // per thread: it left its loop (joining it is then immediate)
};

void lookup_worker(const std::shared_ptr<LookupQueue>& queue, std::size_t me) {
  std::unique_lock<std::mutex> lock(queue->mutex);
  while (!queue->closed && queue->next < queue->hosts.size()) {
    const std::size_t i = queue->next++;
    lock.unlock();
    const int code = queue->lookup(queue->hosts[i]);
    lock.lock();
    queue->codes[i] = code;
    ++queue->answered;
    queue->done.notify_all();
  }
  queue->ended[me] = true;
}

}  // namespace

int system_lookup(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  const int code = getaddrinfo(host.c_str(), nullptr, &hints, &result);
  if (result != nullptr) freeaddrinfo(result);
  return code;
}

std::vector<HostLookup> resolve_hosts(const std::vector<std::string>& hosts, std::chrono::milliseconds within,
                                      std::size_t threads, const LookupFunction& lookup) {
  if (hosts.empty()) return {};
  auto queue = std::make_shared<LookupQueue>(hosts, lookup);
  const std::size_t wanted = std::clamp<std::size_t>(threads, 1, hosts.size());
  queue->ended.assign(wanted, false);
  std::vector<std::thread> pool;
  pool.reserve(wanted);
  for (std::size_t t = 0; t < wanted; ++t) {
    try {
      pool.emplace_back(lookup_worker, queue, t);
    } catch (const std::system_error& e) {  // the system gives fewer threads: those started serve the whole queue
      if (pool.empty()) throw failure(fmt::format("cannot start a thread to look host names up: {}", e.what()));
      break;
    }
  }

  std::vector<HostLookup> out(hosts.size());
  std::vector<bool> ended;
  {
    std::unique_lock<std::mutex> lock(queue->mutex);
    queue->done.wait_for(lock, within, [&] { return queue->answered == hosts.size(); });
    queue->closed = true;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      out[i].host = hosts[i];
      const std::optional<int>& code = queue->codes[i];
      out[i].resolved = code && *code == 0;
      if (code && *code != 0) out[i].why = gai_strerror(*code);
      if (!code && i < queue->next) out[i].why = "the resolver did not answer in time";
      if (!code && i >= queue->next) out[i].why = "not looked up: the lookups before it took the whole time";
    }
    ended = queue->ended;
  }
  for (std::size_t t = 0; t < pool.size(); ++t) {
    if (ended[t]) {
      pool[t].join();  // left its loop: it is about to end
    } else {
      pool[t].detach();  // still in the resolver: it ends on its own, takes no other name, holds `queue` until then
    }
  }
  return out;
}

}  // namespace distbench
