// The side file of every rank's figures (--per-rank-file PATH), for a run whose report keeps only their summary
// (core/report/per_rank.hpp). JSON Lines, columnar, written as each record is made:
//   {"type": "per_rank", "version": 1, "benchmark", "world_size", "hosts": [names], "host_of_rank": [index per rank]}
//   {"type": "record", "index": i, "kind", "params", "status", "ranks": n, "figures": {"<key>": [value per rank]}}
//   ... one per record, in the report's order (index: its place in the report's records)
//   {"type": "end", "status": "complete" | "incomplete", "records": count, "reason": null | why}
// A record line lists the ranks ("rank": [ids]) only when they are not 0 .. n-1 in order.
//
// Written as the other reports are (core/report/report_output.hpp): the file is taken (locked) before the run and
// replaced atomically, so that a reader never sees half a file nor half a line, and a run that dies keeps every line
// up to the last replacement. What the root holds stays O(one record): the lines go to an unnamed staging file as
// they are made, and each new version of PATH is a copy of it made in the kernel, paced as the reports' rewrites are
// (at most about 1/kPace of the run), and once more at the end.
#pragma once

#include "core/report/atomic_file.hpp"
#include "core/report/record.hpp"
#include "core/report/report_lock.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

inline constexpr int kPerRankFileVersion = 1;

class PerRankFile {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;
  static constexpr double kPace = 20.0;

  // "": no side file (every call does nothing); `now` paces the copies (tests pass a clock they drive).
  explicit PerRankFile(std::string path, Now now = Clock::now);
  ~PerRankFile();
  PerRankFile(const PerRankFile&) = delete;
  PerRankFile& operator=(const PerRankFile&) = delete;

  bool active() const { return !path_.empty(); }
  // The file with its option, for the runner's checks (writable, not another output or an input).
  std::vector<NamedPath> named() const;

  // Before the run, on the root: takes the file (usage_error when another live run writes it).
  void claim();
  // The header; `hosts[r]` is world rank r's host.
  void begin(std::string_view benchmark, const std::vector<std::string>& hosts);
  // A line per record, with every rank's figures (before the reporters condense them).
  void add(const std::vector<Record>& row);
  // Every record was written: the end line, and the file synced to disk.
  void finish();
  // The run ended without its result (`reason`): the end line says so; the lines written are kept. Safe from another
  // thread than the one adding; nothing after the first finish() or abandon().
  void abandon(const std::string& reason);

 private:
  void append(std::string_view line);
  void publish(Durability durability);
  void end_with(const std::string& status, const std::string& reason, Durability durability);

  std::mutex mutex_;
  std::string path_;
  ReportLock lock_;
  Now now_;
  int staging_ = -1;          // the lines so far, in an unnamed file beside PATH
  std::uint64_t staged_ = 0;  // its bytes (whole lines only)
  std::size_t records_ = 0;
  bool ended_ = false;
  bool published_ = false;
  Clock::time_point last_end_{};
  Clock::duration last_cost_{};
};

}  // namespace distbench
