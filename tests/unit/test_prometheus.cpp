// Health's Prometheus text (benchmarks/health/prometheus): each family once, labels escaped, and the unknown status
// of a check unfinished or ended early.
#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/prometheus.hpp"
#include "tests/support/health_checks.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Prometheus, FamiliesOnceWithEscapedLabels) {
  auto records = sample_run();
  Check odd;
  odd.phase = "verdict";
  odd.subject = "we\"ird\\host";
  odd.metric = "node.status";
  odd.value = 2;
  records.push_back(check_record(odd));
  odd.subject = "vm\xff";  // not UTF-8, which Prometheus requires of a label
  records.push_back(check_record(odd));
  const std::string text = prometheus_text(records, 1.7e9);
  EXPECT_THAT(text, HasSubstr("distbench_health_node_status{host=\"vm\xEF\xBF\xBD\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE distbench_health_node_status gauge\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_node_status{host=\"nodeC\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_node_status{host=\"we\\\"ird\\\\host\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_status 1\n"));
  EXPECT_THAT(text,
              HasSubstr("distbench_health_link_bandwidth_bytes_per_second{src=\"nodeC\",dst=\"nodeA\"} 12000000\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_link_healthy{src=\"nodeC\",dst=\"nodeA\",figure=\"bandwidth\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_last_run_timestamp_seconds 1700000000\n"));
  // Each family's HELP and TYPE once.
  std::size_t at = 0, types = 0;
  while ((at = text.find("# TYPE distbench_health_node_status ", at)) != std::string::npos) {
    ++types;
    ++at;
  }
  EXPECT_EQ(types, 1U);
}

TEST(Prometheus, TheSoakHasFamiliesOfItsOwn) {
  std::vector<Record> records;
  Check wrong = make_check("soak", "rank 3", "nodeB", "soak.calls_wrong", 2, "1");
  records.push_back(check_record(wrong));
  wrong.metric = "soak.elements_wrong";
  wrong.value = 40;
  records.push_back(check_record(wrong));
  records.push_back(check_record(make_check("soak", "job", "", "soak.calls", 1200, "1")));
  const std::string text = prometheus_text(records, 1.7e9);
  EXPECT_THAT(text, HasSubstr("distbench_health_soak_wrong{host=\"nodeB\",subject=\"rank 3\",what=\"calls\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_soak_wrong{host=\"nodeB\",subject=\"rank 3\",what=\"elements\"} 40\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_soak_calls 1200\n"));
  // the job's figures name no host: no host="" beside the hosts' (Prometheus reads an empty label as none)
  records.push_back(check_record(make_check("job", "job", "", "job.allreduce.wrong", 0, "elements")));
  const std::string job = prometheus_text(records, 1.7e9, {"mpi", 3, 6, "standard"});
  EXPECT_THAT(job, HasSubstr("distbench_health_wrong_elements{check=\"job.allreduce.wrong\",subject=\"job\"} 0\n"));
  EXPECT_THAT(job, Not(HasSubstr("=\"\"")));
  // what ran, as an info metric
  EXPECT_THAT(job, HasSubstr("# TYPE distbench_info gauge\n"));
  EXPECT_THAT(job, ::testing::ContainsRegex(
                       "distbench_info\\{version=\"[^\"]+\",git_sha=\"[^\"]+\",backend=\"mpi\",nodes=\"3\",ranks=\"6\","
                       "level=\"standard\"\\} 1\n"));
  // a check without a soak has none of them
  EXPECT_THAT(prometheus_text(sample_run(), 1.7e9), Not(HasSubstr("soak")));
}

TEST(Prometheus, GpuReadingsAndDatasheetFractionsHaveFamiliesSkippedOnesNone) {
  std::vector<Record> records;
  Check temp = make_check("gpu", "n1 GPU 0 (0000:1b:00.0)", "n1", "gpu.temperature_c", 91, "C");
  temp.status = Status::degraded;
  records.push_back(check_record(temp));
  Check skipped = make_check("gpu", "n1 GPU 0 (0000:1b:00.0)", "n1", "gpu.nvlink_down", kNotMeasured, "1");
  skipped.skipped = "NVML cannot read nvlink: Not Supported";
  records.push_back(check_record(skipped));
  records.push_back(
      check_record(make_check("rank", "rank 0 (NVIDIA H200)", "n1", "hardware.memory_fraction", 0.78, "1")));
  const std::string text = prometheus_text(records, 1.7e9);
  EXPECT_THAT(text, HasSubstr("distbench_health_gpu_reading{host=\"n1\",subject=\"n1 GPU 0 (0000:1b:00.0)\","
                              "reading=\"temperature_c\",unit=\"C\"} 91\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_gpu_healthy{host=\"n1\",subject=\"n1 GPU 0 (0000:1b:00.0)\","
                              "reading=\"temperature_c\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_datasheet_fraction{host=\"n1\",subject=\"rank 0 (NVIDIA H200)\","
                              "figure=\"memory\"} 0.78\n"));
  EXPECT_THAT(text, Not(HasSubstr("nvlink_down")));  // skipped: no figure, and not a healthy 1 either
}

TEST(Prometheus, AnUnfinishedCheckSaysUnknownWithItsReason) {
  const std::string text = prometheus_unfinished_text(1.7e9);
  EXPECT_THAT(text, HasSubstr("# TYPE distbench_health_status gauge\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_status{reason=\"the check started and has not ended: still running, "
                              "or killed\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_started_timestamp_seconds 1700000000\n"));
  EXPECT_THAT(text, Not(HasSubstr("last_run_timestamp")));  // it has not ended
  // ended without a verdict: unknown, the reason as a label (escaped), and when it ended
  const std::string ended = prometheus_ended_early_text("interrupted by signal 15 (SIGTERM) during \"rank\"", 1.8e9);
  EXPECT_THAT(ended, HasSubstr("distbench_health_status{reason=\"interrupted by signal 15 (SIGTERM) during "
                               "\\\"rank\\\"\"} 3\n"));
  EXPECT_THAT(ended, HasSubstr("distbench_health_last_run_timestamp_seconds 1800000000\n"));
  EXPECT_THAT(ended, Not(HasSubstr("started_timestamp")));
}

}  // namespace
}  // namespace distbench::health
