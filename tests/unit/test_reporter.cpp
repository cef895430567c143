// The reporter lifecycle that the base class owns for every reporter: begin, add, end; the first end is final.
#include "core/report/reporter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace distbench {
namespace {

// Records which hooks ran, in order.
class Recorder final : public Reporter {
 public:
  explicit Recorder(std::vector<std::string>& log) : log_(log) {}

 protected:
  void do_begin(const RunInfo&, const SweepPlan&) override { log_.push_back("begin"); }
  void do_add(const std::vector<CaseResult>& results) override {
    log_.push_back("add " + std::to_string(results.size()));
  }
  void do_end(const RunInfo& info) override { log_.push_back("end " + info.status); }

 private:
  std::vector<std::string>& log_;
};

RunInfo with_status(std::string status) {
  RunInfo info;
  info.status = std::move(status);
  return info;
}

TEST(Reporter, HooksRunInLifecycleOrder) {
  std::vector<std::string> log;
  Recorder r(log);
  r.begin(RunInfo{}, SweepPlan{});
  r.add({CaseResult{}, CaseResult{}});
  r.end(with_status("complete"));
  EXPECT_EQ(log, (std::vector<std::string>{"begin", "add 2", "end complete"}));
}

TEST(Reporter, TheFirstEndIsFinal) {
  std::vector<std::string> log;
  Recorder r(log);
  r.begin(RunInfo{}, SweepPlan{});
  r.end(with_status("failed"));
  r.add({CaseResult{}});
  r.end(with_status("complete"));
  EXPECT_EQ(log, (std::vector<std::string>{"begin", "end failed"}));
}

TEST(Reporter, EndBeforeBeginWritesNothingAndAddBeforeBeginIsAnError) {
  std::vector<std::string> log;
  Recorder r(log);
  r.end(with_status("failed"));
  EXPECT_THROW(r.add({CaseResult{}}), Error);
  EXPECT_TRUE(log.empty());
}

TEST(Reporter, EndFromAnotherThreadWhileAdding) {
  std::vector<std::string> log;
  Recorder r(log);
  r.begin(RunInfo{}, SweepPlan{});
  std::thread ender([&] { r.end(with_status("failed")); });
  for (int i = 0; i < 1000; ++i) r.add({CaseResult{}});
  ender.join();
  ASSERT_GE(log.size(), 2u);
  EXPECT_EQ(log.front(), "begin");
  EXPECT_EQ(log.back(), "end failed");  // nothing is added after the end, whenever it came
}

TEST(Reporter, ASetFeedsEveryReporter) {
  std::vector<std::string> a, b;
  ReporterSet set;
  set.push(std::make_unique<Recorder>(a));
  set.push(std::make_unique<Recorder>(b));
  set.begin(RunInfo{}, SweepPlan{});
  set.add({CaseResult{}});
  set.end(with_status("complete"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<std::string>{"begin", "add 1", "end complete"}));
}

}  // namespace
}  // namespace distbench
