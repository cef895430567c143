// Reporters format records; they never measure. The public entry points are non-virtual and call protected hooks,
// so that what every reporter needs (the lock, ordering checks, the records so far) lives in one place (nvbench's
// printer_base). What to show comes from the benchmark's RunDescription: no reporter knows any benchmark.
#pragma once

#include "core/error.hpp"
#include "core/report/layout.hpp"
#include "core/report/per_rank.hpp"
#include "core/report/record.hpp"
#include "core/report/run_info.hpp"

#include <cstddef>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

namespace distbench {

class Reporter {
 public:
  virtual ~Reporter() = default;

  // The lifecycle, the same for every reporter, under one lock (end() may come from the watchdog or signal thread
  // while the main thread is adding): begin once, then add, then end; the first end() is final, later add() and
  // end() calls change nothing (the first verdict names the cause); an end() before begin() writes nothing; an add()
  // before begin() is a programming error.
  void begin(const RunInfo& info, const RunDescription& description) {
    std::lock_guard lock(mutex_);
    begun_ = true;
    ended_ = false;
    description_ = description;
    records_.clear();
    rows_.clear();
    do_begin(info);
  }
  // After each completed row of the table: its records (e.g. one per placement), in the benchmark's order. Each is
  // kept, and shown, in the form the description's per-rank policy asks for (core/report/per_rank.hpp): above the
  // threshold of ranks, a summary of the ranks' figures in place of every rank's, so that what a reporter keeps
  // stays O(records) however many ranks ran.
  void add(const std::vector<Record>& records) {
    std::lock_guard lock(mutex_);
    if (ended_) return;
    if (!begun_) throw failure("internal error: a reporter was given records before begin()");
    const std::size_t first = records_.size();
    records_.insert(records_.end(), records.begin(), records.end());
    for (std::size_t i = first; i < records_.size(); ++i) condense_ranks(records_[i], description_.per_rank);
    rows_.push_back(records.size());
    do_add(std::vector<Record>(records_.begin() + static_cast<std::ptrdiff_t>(first), records_.end()));
  }
  // Before the run, before begin(): a reporter that writes a file takes it (and refuses, with usage_error, one that
  // another live run is writing).
  void claim() {
    std::lock_guard lock(mutex_);
    do_claim();
  }
  // Once, at the end, or when the run fails (info.status tells which).
  void end(const RunInfo& info) {
    std::lock_guard lock(mutex_);
    if (ended_ || !begun_) return;
    ended_ = true;
    do_end(info);
  }

 protected:
  // Called with the lock held, in lifecycle order only.
  virtual void do_begin(const RunInfo& info) = 0;
  virtual void do_add(const std::vector<Record>& row) = 0;
  virtual void do_end(const RunInfo& info) = 0;
  virtual void do_claim() {}

  const RunDescription& description() const { return description_; }
  const std::vector<Record>& records() const { return records_; }  // every record added so far
  const std::vector<std::size_t>& rows() const { return rows_; }   // how many records each add() gave, in order
  std::vector<SummaryItem> summary() const {
    return description_.summarize ? description_.summarize(records_) : std::vector<SummaryItem>{};
  }
  std::vector<TextSection> sections() const {
    return description_.sections ? description_.sections(records_) : std::vector<TextSection>{};
  }

 private:
  std::mutex mutex_;
  bool begun_ = false;
  bool ended_ = false;
  RunDescription description_;
  std::vector<Record> records_;
  std::vector<std::size_t> rows_;
};

// Feeds several reporters at once.
class ReporterSet final : public Reporter {
 public:
  void push(std::unique_ptr<Reporter> r) { reporters_.push_back(std::move(r)); }

 protected:
  void do_begin(const RunInfo& info) override {
    for (auto& r : reporters_) r->begin(info, description());
  }
  void do_add(const std::vector<Record>& row) override {
    for (auto& r : reporters_) r->add(row);
  }
  void do_end(const RunInfo& info) override {
    for (auto& r : reporters_) r->end(info);
  }
  void do_claim() override {
    for (auto& r : reporters_) r->claim();
  }

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

}  // namespace distbench
