// A latency size as a record: parameters backend/bytes/pairs, one phase "one_way", the one-way metrics and each
// rank's mean with its peer; the table's columns and the run's summary.
#pragma once

#include "core/measure/phase_stats.hpp"
#include "core/report/layout.hpp"
#include "core/report/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::latency {

// Each metric of a latency record, declared once with its table column; the record builder, layout, table and
// summary read these.
namespace metrics {
inline constexpr MetricColumn latency{
    "latency_us",        "us",          "one-way time, mean over ranks of each rank's mean (OSU's latency)",
    "latency",           "(us)",        10,
    CellFormat::time_us, "latency (us)"};
inline constexpr MetricColumn median{
    "latency_median_us", "us",         "median over samples of the mean over ranks", "median", "(us)", 10,
    CellFormat::time_us, "median (us)"};
inline constexpr MetricColumn p99{
    "latency_p99_us",    "us",      "99th percentile over samples of the mean over ranks", "p99", "(us)", 10,
    CellFormat::time_us, "p99 (us)"};
inline constexpr MetricColumn slowest{"slowest_rank_us",
                                      "us",
                                      "the slowest rank's mean: its pair's one-way time",
                                      "slowest",
                                      "(us)",
                                      10,
                                      CellFormat::time_us,
                                      "slowest rank (us)"};
inline constexpr MetricColumn bandwidth{
    "bandwidth_gbps",      "GB/s",     "bytes / latency (1e9 B/s), as the collectives' algbw", "bw", "(GB/s)", 10,
    CellFormat::bandwidth, "bw (GB/s)"};
inline constexpr MetricColumn wrong{
    "wrong",
    "1",
    "wrong elements (bytes: it moves uint8) over both directions and all ranks; null when not checked",
    "#wrong",
    "",
    6,
    CellFormat::checked,
    "#wrong"};
inline constexpr MetricColumn all[] = {latency, median, p99, slowest, bandwidth, wrong};  // in the layout's order
}  // namespace metrics

RecordLayout latency_record_layout();
TableLayout latency_table();
std::vector<SummaryItem> latency_summary(const std::vector<Record>& records);
// The record of one size from the pairs' one-way samples (seconds; by_rank[r] for world rank r).
Record latency_record(std::uint64_t bytes, const std::string& backend, const std::vector<std::vector<double>>& by_rank,
                      int ops_per_sample, bool noise_target_met, std::int64_t wrong,
                      const std::vector<std::string>& hosts);
// The same from the phase already reduced across the ranks ("one_way", -a avg: core/comm/phase_over_ranks.hpp).
Record latency_record(std::uint64_t bytes, const std::string& backend, ReducedPhase phase, int ops_per_sample,
                      bool noise_target_met, std::int64_t wrong, const std::vector<std::string>& hosts);

}  // namespace distbench::latency
