// Golden output of the CSV report: the whole file, after each add() and at the end.
#include "core/report/csv_reporter.hpp"
#include "tests/support/report_pace.hpp"

#include "tests/support/collective_records.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace distbench {
namespace {

using collective::CaseResult;
using collective::SweepPlan;
using test_support::describe;
using test_support::records;

namespace fs = std::filesystem;

class CsvReporterTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("distbench_csv_" + std::to_string(::getpid()) + "_" +
                                           testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string read(const fs::path& p) const {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
};

constexpr std::string_view kHeader =
    "collective,backend,dtype,op,placement,root,bytes,count,nranks,group,groups,ops_per_sample,samples,median_us,"
    "mean_us,min_us,max_us,stddev_us,p99_us,noise_pct,median_ci_pct,rank_min_us,rank_avg_us,rank_max_us,time_us,"
    "algbw_gbps,busbw_gbps,wrong,faults_per_op,switches_per_op,status,skip_reason\n";

CaseResult measured(std::string placement, std::int64_t wrong) {
  CaseResult r = test_support::allreduce_case(std::move(placement), 1048576, 4);
  r.time.samples = 20;
  r.time.median = 250.5e-6;
  r.time.mean = 251e-6;
  r.time.min = 248.75e-6;
  r.time.max = 260.125e-6;
  r.time.stddev = 2.5e-6;
  r.time.p99 = 259.9e-6;
  r.time.noise = 0.996;
  r.time.median_ci = 1.25;
  r.os_per_op = {{2, 0, 1, 0.5}, {4, 1, 0, 0}};  // the most over ranks: 5 faults, 1.5 switches per operation
  r.rank_time = {249e-6, 250.25e-6, 252e-6, 249.5e-6};
  r.time_shown = 250.25e-6;
  r.algbw = 4.1901;
  r.busbw = 6.2852;
  r.wrong = wrong;
  return r;
}

TEST_F(CsvReporterTest, WholeFileAfterEachAdd) {
  const fs::path path = dir_ / "run.csv";
  RunInfo info;
  SweepPlan plan;
  test_support::PaceClock clock;
  CsvReporter reporter(path.string(), clock.now());

  reporter.begin(info, describe(plan, info));
  EXPECT_EQ(read(path), kHeader);

  clock.let_the_pace_pass();
  reporter.add(records({measured("out-of-place", 0), measured("in-place", -1)}));
  const std::string two_rows =
      std::string(kHeader) +
      "allreduce,mpi,float32,sum,out-of-place,-1,1048576,262144,4,world,1,1,20,250.5,251,248.75,260.125,2.5,"
      "259.9,0.996,1.25,249,250.25,252,250.25,4.1901,6.2852,0,5,1.5,ok,\n"
      "allreduce,mpi,float32,sum,in-place,-1,1048576,262144,4,world,1,1,20,250.5,251,248.75,260.125,2.5,"
      "259.9,0.996,1.25,249,250.25,252,250.25,4.1901,6.2852,,5,1.5,ok,\n";
  EXPECT_EQ(read(path), two_rows);

  // A skipped case has no measurements; a field with a comma or a quote is quoted (RFC 4180).
  CaseResult skipped = measured("out-of-place", 0);
  skipped.bytes = 8;
  skipped.count = 2;
  skipped.group = "pairs \"a,b\"";
  skipped.groups = 2;
  skipped.status = "skipped";
  skipped.skip_reason = "needs 2 ranks per group";
  clock.let_the_pace_pass();
  reporter.add(records({skipped}));
  const std::string three_rows = two_rows +
                                 "allreduce,mpi,float32,sum,out-of-place,-1,8,2,4,\"pairs "
                                 "\"\"a,b\"\"\",2,,,,,,,,,,,,,,,,,,,,skipped,needs 2 ranks per group\n";
  EXPECT_EQ(read(path), three_rows);

  info.status = "complete";
  reporter.end(info);
  EXPECT_EQ(read(path), three_rows);
  reporter.add(records({measured("in-place", 0)}));  // ignored after end()
  EXPECT_EQ(read(path), three_rows);

  // Only the report itself is left: no temporary files.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(CsvReporterTest, LargeAndSmallNumbersKeepTwelveDigits) {
  const fs::path path = dir_ / "numbers.csv";
  CaseResult r = measured("out-of-place", 123456789);
  r.time_shown = 1.5e-7;       // 0.15 us
  r.time.median = 12.3456789;  // seconds
  r.algbw = 1.0 / 3.0;
  r.busbw = 0;
  test_support::PaceClock clock;
  CsvReporter reporter(path.string(), clock.now());
  reporter.begin({}, describe(SweepPlan{}, {}));
  clock.let_the_pace_pass();
  reporter.add(records({r}));
  EXPECT_EQ(read(path), std::string(kHeader) +
                            "allreduce,mpi,float32,sum,out-of-place,-1,1048576,262144,4,world,1,1,20,12345678.9,251,"
                            "248.75,260.125,2.5,259.9,0.996,1.25,249,250.25,252,0.15,0.333333333333,0,123456789,5,1.5,"
                            "ok,\n");
}

}  // namespace
}  // namespace distbench
