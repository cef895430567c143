// The processes below one, from /proc: a parent read from any process name (spaces and parentheses in it), every
// descendant found whatever the order of the table and however deep, and this process's own children read live.
#include "compare/process_tree.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

namespace distbench::compare {
namespace {

pid_t parent_of(const std::string& stat) { return parent_in_stat(stat.data(), stat.size()); }

TEST(ProcessTree, TheParentInAStatLine) {
  EXPECT_EQ(parent_of("4242 (sleep) S 17 4242 17 0 -1 4194304 100 0 0 0"), 17);
  EXPECT_EQ(parent_of("1 (systemd) S 0 1 1 0 -1"), 0);
  // A name may hold spaces and ')': the last ')' ends it.
  EXPECT_EQ(parent_of("77 (a) S 5 (b)) R 123 77 77"), 123);
  EXPECT_EQ(parent_of("77 (tmux: server) Z 9"), 9);  // the number may end the text
  for (const char* bad :
       {"", "77", "77 (x)", "77 (x) S", "77 (x) S ", "77 (x) S x", "77 (x)S 5", "77 (x) S 99999999"}) {
    EXPECT_EQ(parent_of(bad), -1) << bad;
  }
}

TEST(ProcessTree, EveryDescendantInAnyOrder) {
  // 1 -> 10 -> 20 -> 30 -> 40, 10 -> 21; 2 -> 50 (another tree); listed children first, as pids are reused.
  const std::vector<ProcessEntry> table = {{40, 30}, {30, 20}, {21, 10}, {20, 10}, {50, 2}, {10, 1}, {2, 0}, {1, 0}};
  std::vector<std::uint64_t> marks(kPidBitmapWords);
  std::vector<pid_t> out(16);
  auto below = [&](pid_t root) {
    const std::size_t n = descendants_of(root, table.data(), table.size(), marks.data(), out.data(), out.size());
    std::vector<pid_t> found(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
    std::sort(found.begin(), found.end());
    return found;
  };
  EXPECT_EQ(below(10), (std::vector<pid_t>{20, 21, 30, 40}));
  EXPECT_EQ(below(30), (std::vector<pid_t>{40}));
  EXPECT_EQ(below(2), (std::vector<pid_t>{50}));
  EXPECT_EQ(below(40), (std::vector<pid_t>{}));
  EXPECT_EQ(below(1), (std::vector<pid_t>{10, 20, 21, 30, 40}));
  // No more than the room given.
  EXPECT_EQ(descendants_of(1, table.data(), table.size(), marks.data(), out.data(), 2), 2u);
}

TEST(ProcessTree, ThisProcessAndItsChildrenFromProc) {
  // A child that forks a grandchild: both below this process, read from the real /proc.
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {
      ::pause();
      ::_exit(0);
    }
    if (::write(ready[1], &grandchild, sizeof grandchild) < 0) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  pid_t grandchild = 0;
  ASSERT_EQ(::read(ready[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
  std::vector<ProcessEntry> table(1 << 16);
  std::vector<char> dents(1 << 16);
  const std::size_t n = scan_processes(table.data(), table.size(), dents.data(), dents.size());
  const auto self = std::find_if(table.begin(), table.begin() + static_cast<std::ptrdiff_t>(n),
                                 [](const ProcessEntry& e) { return e.pid == ::getpid(); });
  ASSERT_NE(self, table.begin() + static_cast<std::ptrdiff_t>(n));
  EXPECT_EQ(self->parent, ::getppid());
  std::vector<std::uint64_t> marks(kPidBitmapWords);
  std::vector<pid_t> out(64);
  const std::size_t found = descendants_of(::getpid(), table.data(), n, marks.data(), out.data(), out.size());
  const std::vector<pid_t> below(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(found));
  for (pid_t pid : {child, grandchild}) {  // (and whatever else this test process may have started)
    EXPECT_NE(std::find(below.begin(), below.end(), pid), below.end()) << pid;
  }
  EXPECT_EQ(std::find(below.begin(), below.end(), ::getppid()), below.end());
  ::kill(grandchild, SIGKILL);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
}

}  // namespace
}  // namespace distbench::compare
