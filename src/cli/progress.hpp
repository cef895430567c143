// A sign of life while a benchmark runs, on the root rank's stderr, never on stdout (the table and reports to
// stdout stay clean). Three modes (--progress):
//   auto  a live line, redrawn in place, when stderr is a terminal; otherwise (under mpirun, whose ranks write to a
//         pipe, or into a CI log) a plain line for a case still running after a few seconds, and again while it runs;
//   on    the same at a terminal; elsewhere a plain line as every case starts;
//   off   nothing.
// A thread of its own redraws the line, so that a case that samples for a minute (--max-noise) still shows that
// it runs. Whoever writes to the terminal calls clear() first, so that the live line never sits in front of a row.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace distbench::cli {

enum class ProgressMode { automatic, on, off };

// "auto", "on", "off"; throws usage_error otherwise.
ProgressMode parse_progress_mode(std::string_view text);

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;

  // `live`: the stream is a terminal (the line is redrawn in place); `out`: where it is written (stderr).
  ProgressLine(ProgressMode mode, bool live, std::FILE* out = stderr);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The benchmark's ProgressFn: `done` of `total` rows are finished and `next` runs now; done == total ends it.
  void step(std::size_t done, std::size_t total, const std::string& next);
  // Erases the live line (before other output reaches the terminal); the ticker redraws it later.
  void clear();

  // When a plain line is first printed for a running case, and how often again (auto mode, not a terminal).
  static constexpr std::chrono::seconds kPlainAfter{5};
  static constexpr std::chrono::seconds kPlainEvery{30};

 private:
  void tick();
  void draw_live(Clock::time_point now);            // with mutex_ held
  void erase_live();                                // with mutex_ held
  std::string status(Clock::time_point now) const;  // "[3/24] allreduce 1 MiB ...: 12 s"

  ProgressMode mode_;
  bool live_;
  std::FILE* out_;
  Clock::time_point began_ = Clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool shown_ = false;  // a live line is on the screen
  std::size_t done_ = 0, total_ = 0;
  std::string case_;  // running now; empty: none
  Clock::time_point case_began_ = began_;
  Clock::time_point next_plain_ = began_;
  std::thread ticker_;
};

}  // namespace distbench::cli
