#include "cli/resolve_hosts.hpp"

#include <netdb.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace distbench {
namespace {

// Names are looked up within a bound, every one answered in order: localhost always resolves, a name under the
// .invalid domain never does (RFC 2606), whether a DNS server answers or not.
TEST(ResolveHosts, LocalhostResolvesAndAnInvalidNameDoesNotWithinTheBound) {
  const auto began = std::chrono::steady_clock::now();
  const auto r = resolve_hosts({"localhost", "no-such-host.invalid", "127.0.0.1"}, std::chrono::seconds(3));
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(5));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].resolved) << r[0].why;
  EXPECT_FALSE(r[1].resolved);
  EXPECT_FALSE(r[1].why.empty());
  EXPECT_TRUE(r[2].resolved) << r[2].why;
  EXPECT_TRUE(resolve_hosts({}, std::chrono::seconds(1)).empty());
}

// IPv4 addresses resolve without a DNS server: 10.x.y.z for the first `count` numbers.
std::vector<std::string> numeric_hosts(std::size_t count) {
  std::vector<std::string> hosts;
  for (std::size_t i = 0; i < count; ++i)
    hosts.push_back("10." + std::to_string(i >> 16 & 255) + "." + std::to_string(i >> 8 & 255) + "." +
                    std::to_string(i & 255));
  return hosts;
}

std::size_t lines_in(const char* path) {
  std::ifstream in(path);
  return static_cast<std::size_t>(std::count(std::istreambuf_iterator<char>(in), {}, '\n'));
}

std::size_t entries_in(const char* folder) {
  std::error_code ec;
  const auto it = std::filesystem::directory_iterator(folder, ec);
  return ec ? 0 : static_cast<std::size_t>(std::distance(it, std::filesystem::directory_iterator{}));
}

// The peaks of this process's threads (/proc/self/task) and memory mappings (/proc/self/maps: a thread's stack and
// its guard are two, kept until the thread is joined) while `work` runs, above what was there before.
struct Peaks {
  std::size_t threads = 0;
  std::size_t mappings = 0;
};

template <typename Work>
Peaks peaks_during(Work work) {
  const std::size_t threads_before = entries_in("/proc/self/task");
  const std::size_t mappings_before = lines_in("/proc/self/maps");
  std::atomic<bool> stop{false};
  Peaks peaks;
  std::thread watcher([&] {
    while (!stop.load()) {
      peaks.threads = std::max(peaks.threads, entries_in("/proc/self/task"));
      peaks.mappings = std::max(peaks.mappings, lines_in("/proc/self/maps"));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  work();
  stop = true;
  watcher.join();
  peaks.threads = peaks.threads > threads_before ? peaks.threads - threads_before : 0;
  peaks.mappings = peaks.mappings > mappings_before ? peaks.mappings - mappings_before : 0;
  return peaks;
}

// A hostfile of tens of thousands of hosts (45,000 fit the 1 MiB a hostfile may hold) is looked up by the pool: a
// thread per name held 2.8 GB at 30,000 names and aborted at 45,000 (the mappings ran out).
TEST(ResolveHosts, TensOfThousandsOfNamesTakeAFixedPoolOfThreads) {
  const std::vector<std::string> hosts = numeric_hosts(20000);
  std::vector<HostLookup> r;
  const Peaks peaks = peaks_during([&] { r = resolve_hosts(hosts, std::chrono::seconds(60)); });
  ASSERT_EQ(r.size(), hosts.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    ASSERT_EQ(r[i].host, hosts[i]);
    ASSERT_TRUE(r[i].resolved) << r[i].host << ": " << r[i].why;
  }
  // the watcher itself and a thread or two of the C library's besides the pool
  EXPECT_LE(peaks.threads, kResolverThreads + 3);
  // each thread's stack and guard, and the C library's per-thread malloc arenas (a few mappings each)
  EXPECT_LE(peaks.mappings, 8 * (kResolverThreads + 3));
}

// A resolver that never answers (an unreachable DNS server holds getaddrinfo for its whole retry period): the call
// returns at its deadline all the same; the names in the resolver then did not answer in time, those no thread took
// were not looked up, and the pool takes no name after the deadline. The stuck lookups end once released.
TEST(ResolveHosts, AResolverThatNeverAnswersEndsAtTheDeadline) {
  struct Gate {
    std::mutex mutex;
    std::condition_variable opened;
    bool open = false;
    std::atomic<int> started{0};
  };
  auto gate = std::make_shared<Gate>();
  const LookupFunction stuck = [gate](const std::string&) {
    ++gate->started;
    std::unique_lock<std::mutex> lock(gate->mutex);
    gate->opened.wait(lock, [&] { return gate->open; });
    return EAI_AGAIN;
  };
  const std::vector<std::string> hosts = numeric_hosts(1000);
  const auto began = std::chrono::steady_clock::now();
  const auto r = resolve_hosts(hosts, std::chrono::milliseconds(200), 4, stuck);
  const auto took = std::chrono::steady_clock::now() - began;
  EXPECT_GE(took, std::chrono::milliseconds(190));
  EXPECT_LT(took, std::chrono::seconds(5));
  ASSERT_EQ(r.size(), hosts.size());
  std::size_t in_time = 0, not_looked_up = 0;
  for (const HostLookup& l : r) {
    EXPECT_FALSE(l.resolved);
    in_time += l.why == "the resolver did not answer in time" ? 1 : 0;
    not_looked_up += l.why == "not looked up: the lookups before it took the whole time" ? 1 : 0;
  }
  EXPECT_EQ(in_time, 4u);  // the pool's four threads, each stuck on its first name
  EXPECT_EQ(not_looked_up, hosts.size() - 4);
  EXPECT_EQ(gate->started.load(), 4);
  {
    const std::lock_guard<std::mutex> lock(gate->mutex);
    gate->open = true;
  }
  gate->opened.notify_all();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(gate->started.load(), 4) << "a thread took a name after the deadline";
}

// The resolver's answers are each name's own, in order, whichever thread looked it up.
TEST(ResolveHosts, EachNameGetsItsOwnAnswer) {
  const LookupFunction odd_fail = [](const std::string& host) { return (host.back() - '0') % 2 == 1 ? EAI_NONAME : 0; };
  const std::vector<std::string> hosts = numeric_hosts(500);
  const auto r = resolve_hosts(hosts, std::chrono::seconds(60), 8, odd_fail);
  ASSERT_EQ(r.size(), hosts.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    ASSERT_EQ(r[i].host, hosts[i]);
    EXPECT_EQ(r[i].resolved, (hosts[i].back() - '0') % 2 == 0) << hosts[i];
    if (!r[i].resolved) {
      EXPECT_EQ(r[i].why, gai_strerror(EAI_NONAME));
    }
  }
}

}  // namespace
}  // namespace distbench
