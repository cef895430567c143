// The reporter lifecycle that the base class owns for every reporter: begin, add, end; the first end is final.
#include "core/report/reporter.hpp"

#include <fmt/format.h>
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
  void do_begin(const RunInfo&) override { log_.push_back("begin " + description().benchmark); }
  void do_add(const std::vector<Record>& row) override {
    log_.push_back(fmt::format("add {} of {}", row.size(), records().size()));
  }
  void do_end(const RunInfo& info) override {
    log_.push_back(fmt::format("end {} ({})", info.status, summary().empty() ? "" : summary().front().text));
  }

 private:
  std::vector<std::string>& log_;
};

// A description whose summary counts the records so far.
RunDescription counting() {
  RunDescription d;
  d.benchmark = "test";
  d.summarize = [](const std::vector<Record>& records) {
    return std::vector<SummaryItem>{
        {"n", "Records", static_cast<double>(records.size()), std::to_string(records.size())}};
  };
  return d;
}

RunInfo with_status(std::string status) {
  RunInfo info;
  info.status = std::move(status);
  return info;
}

TEST(Reporter, HooksRunInLifecycleOrder) {
  std::vector<std::string> log;
  Recorder r(log);
  r.begin(RunInfo{}, counting());
  r.add({Record{}, Record{}});
  r.end(with_status("complete"));
  EXPECT_EQ(log, (std::vector<std::string>{"begin test", "add 2 of 2", "end complete (2)"}));
}

TEST(Reporter, TheFirstEndIsFinal) {
  std::vector<std::string> log;
  Recorder r(log);
  r.begin(RunInfo{}, counting());
  r.end(with_status("failed"));
  r.add({Record{}});
  r.end(with_status("complete"));
  EXPECT_EQ(log, (std::vector<std::string>{"begin test", "end failed (0)"}));
}

TEST(Reporter, EndBeforeBeginWritesNothingAndAddBeforeBeginIsAnError) {
  std::vector<std::string> log;
  Recorder r(log);
  r.end(with_status("failed"));
  EXPECT_THROW(r.add({Record{}}), Error);
  EXPECT_TRUE(log.empty());
}

TEST(Reporter, EndFromAnotherThreadWhileAdding) {
  std::vector<std::string> log;
  Recorder r(log);
  r.begin(RunInfo{}, counting());
  std::thread ender([&] { r.end(with_status("failed")); });
  for (int i = 0; i < 1000; ++i) r.add({Record{}});
  ender.join();
  ASSERT_GE(log.size(), 2u);
  EXPECT_EQ(log.front(), "begin test");
  EXPECT_EQ(log.back().substr(0, 10), "end failed");  // nothing is added after the end, whenever it came
}

TEST(Reporter, ASetFeedsEveryReporter) {
  std::vector<std::string> a, b;
  ReporterSet set;
  set.push(std::make_unique<Recorder>(a));
  set.push(std::make_unique<Recorder>(b));
  set.begin(RunInfo{}, counting());
  set.add({Record{}});
  set.end(with_status("complete"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<std::string>{"begin test", "add 1 of 1", "end complete (1)"}));
}

}  // namespace
}  // namespace distbench
