#include "cli/resolve_hosts.hpp"

#include <netdb.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace distbench {
namespace {

// What the lookups share with the caller; kept alive by the threads still running after the caller gave up.
struct Answers {
  std::mutex mutex;
  std::condition_variable done;
  std::vector<std::optional<int>> codes;  // getaddrinfo's result per name, once it answered
  std::size_t answered = 0;
};

}  // namespace

std::vector<HostLookup> resolve_hosts(const std::vector<std::string>& hosts, std::chrono::milliseconds within) {
  auto answers = std::make_shared<Answers>();
  answers->codes.resize(hosts.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    threads.emplace_back([answers, i, name = hosts[i]] {
      addrinfo hints{};
      hints.ai_family = AF_UNSPEC;
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* result = nullptr;
      const int code = getaddrinfo(name.c_str(), nullptr, &hints, &result);
      if (result != nullptr) freeaddrinfo(result);
      const std::lock_guard<std::mutex> lock(answers->mutex);
      answers->codes[i] = code;
      ++answers->answered;
      answers->done.notify_all();
    });
  }
  std::vector<HostLookup> out(hosts.size());
  std::vector<bool> finished(hosts.size());
  {
    std::unique_lock<std::mutex> lock(answers->mutex);
    answers->done.wait_for(lock, within, [&] { return answers->answered == hosts.size(); });
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      out[i].host = hosts[i];
      const std::optional<int>& code = answers->codes[i];
      out[i].resolved = code && *code == 0;
      if (!code) out[i].why = "the resolver did not answer in time";
      if (code && *code != 0) out[i].why = gai_strerror(*code);
      finished[i] = code.has_value();
    }
  }
  for (std::size_t i = 0; i < threads.size(); ++i) {
    if (finished[i]) {
      threads[i].join();  // answered: it is about to end
    } else {
      threads[i].detach();  // still in the resolver: it ends on its own and holds `answers` until then
    }
  }
  return out;
}

}  // namespace distbench
