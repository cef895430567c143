// OS counters of the measuring thread: page faults really counted when fresh memory is touched, per operation.
#include "core/measure/os_counters.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstddef>
#include <thread>

namespace distbench {
namespace {

// AddressSanitizer touches a shadow page of its own for every 8 pages the test touches (+0.125 faults per page).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif

TEST(OsCounters, FirstTouchOfFreshPagesCountsMinorFaults) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer faults in shadow pages of its own beside the test's";
  constexpr std::size_t kPages = 256;
  constexpr std::size_t kPage = 4096;
  void* map = mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  const OsCounters before = thread_os_counters();
  auto* bytes = static_cast<volatile char*>(map);
  for (std::size_t p = 0; p < kPages; ++p) bytes[p * kPage] = 1;
  const OsCounters after = thread_os_counters();
  munmap(map, kPages * kPage);
  const OsCounters per_page = per_operation(before, after, kPages);
  EXPECT_GE(per_page.minor_faults, 0.9);  // one fault per page (a little slack for huge-page backed memory)
  EXPECT_LE(per_page.minor_faults, 1.1);
  EXPECT_GE(per_page.faults(), per_page.minor_faults);
}

TEST(OsCounters, SleepingIsAVoluntarySwitch) {
  const OsCounters before = thread_os_counters();
  for (int i = 0; i < 5; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const OsCounters after = thread_os_counters();
  EXPECT_GE(after.voluntary_switches - before.voluntary_switches, 5);
  EXPECT_GE(per_operation(before, after, 5).switches(), 1);
}

TEST(OsCounters, OtherThreadsAreNotCounted) {
  const OsCounters before = thread_os_counters();
  std::thread([] {
    for (int i = 0; i < 20; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }).join();
  const OsCounters after = thread_os_counters();
  EXPECT_LT(after.voluntary_switches - before.voluntary_switches, 20);  // the join itself may block once or twice
}

TEST(OsCounters, PerOperationOfNothingIsZero) {
  const OsCounters c = per_operation(OsCounters{}, OsCounters{10, 1, 2, 3}, 0);
  EXPECT_EQ(c.faults(), 0);
  EXPECT_EQ(c.switches(), 0);
}

TEST(OsCounters, FaultsShapeTimeFromOnePerOperationAndOnePerMiB) {
  EXPECT_FALSE(faults_shape_time(0.9, 8));
  EXPECT_TRUE(faults_shape_time(1, 8));
  EXPECT_TRUE(faults_shape_time(32, 128 * 1024));
  EXPECT_FALSE(faults_shape_time(63, 64.0 * 1024 * 1024));
  EXPECT_TRUE(faults_shape_time(64, 64.0 * 1024 * 1024));
}

}  // namespace
}  // namespace distbench
