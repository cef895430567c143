// A run's output within a cap: under it, the log is the output; over it, the head, one line saying how much was
// dropped, and the tail, whatever the size of the pieces it came in; the cap costs the ring, not the output.
#include "compare/output_cap.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace distbench::compare {
namespace {

// What an OutputCap of `head` and `tail` bytes writes for `output` taken in pieces of `piece` bytes.
std::string capped(const std::string& output, std::size_t head, std::size_t tail, std::size_t piece) {
  char path[] = "/tmp/distbench-output-cap-XXXXXX";
  const int fd = ::mkstemp(path);
  EXPECT_GE(fd, 0);
  std::vector<char> ring(tail);
  OutputCap cap(fd, head, ring.data(), tail);
  for (std::size_t at = 0; at < output.size(); at += piece) {
    cap.take(output.data() + at, std::min(piece, output.size() - at));
  }
  cap.finish();
  EXPECT_EQ(cap.total(), output.size());
  std::string written;
  ::lseek(fd, 0, SEEK_SET);
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) written.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  ::unlink(path);
  return written;
}

std::string numbered(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; s.size() < n; ++i) s += std::to_string(i) + ",";
  return s.substr(0, n);
}

TEST(OutputCap, UnderTheCapTheLogIsTheOutput) {
  const std::string output = numbered(150);
  for (std::size_t piece : {1u, 7u, 64u, 1000u}) {
    EXPECT_EQ(capped(output, 100, 50, piece), output) << piece;  // exactly head + tail: nothing dropped
    EXPECT_EQ(capped(output.substr(0, 120), 100, 50, piece), output.substr(0, 120)) << piece;
  }
}

TEST(OutputCap, OverTheCapTheHeadTheDroppedCountAndTheTail) {
  const std::string output = numbered(10'000);
  char line[256];
  const std::string dropped(line, dropped_line(line, sizeof line, 10'000 - 100 - 50, 100, 50));
  EXPECT_EQ(dropped,
            "\n[... 9850 bytes of output dropped here by distbench compare: the log keeps the first 100 and "
            "the last 50 bytes ...]\n");
  const std::string expected = output.substr(0, 100) + dropped + output.substr(10'000 - 50);
  for (std::size_t piece : {1u, 3u, 49u, 50u, 51u, 99u, 4096u, 10'000u}) {  // pieces smaller and larger than the ring
    EXPECT_EQ(capped(output, 100, 50, piece), expected) << piece;
  }
}

TEST(OutputCap, NoTailOrNoHead) {
  const std::string output = numbered(1000);
  char line[256];
  EXPECT_EQ(capped(output, 10, 0, 33),
            output.substr(0, 10) + std::string(line, dropped_line(line, sizeof line, 990, 10, 0)));
  EXPECT_EQ(capped(output, 0, 10, 33),
            std::string(line, dropped_line(line, sizeof line, 990, 0, 10)) + output.substr(990));
}

TEST(OutputCap, TheLineFitsAnyCapacityAndTheLargestCounts) {
  char line[256];
  const std::size_t n = dropped_line(line, sizeof line, UINT64_MAX, SIZE_MAX, SIZE_MAX);
  EXPECT_LT(n, sizeof line);
  EXPECT_NE(std::string(line, n).find("18446744073709551615 bytes of output dropped"), std::string::npos);
  char small[8];
  EXPECT_EQ(dropped_line(small, sizeof small, 123, 1, 1), sizeof small);  // cut, never past the end
  EXPECT_EQ(std::string(small, sizeof small), "\n[... 12");
}

}  // namespace
}  // namespace distbench::compare
