// A collective case as a record: parameters collective/backend/dtype/op/placement/root/bytes/count/nranks/group/
// groups, one phase "time", metrics time/algbw/busbw/wrong/faults/switches, and each rank's mean time and OS counters.
#pragma once

#include "benchmarks/collective/case_result.hpp"
#include "core/report/layout.hpp"
#include "core/report/run_info.hpp"

#include <string>
#include <vector>

namespace distbench::collective {

// Each metric of a collective record, declared once with its table column (nccl-tests' titles, widths and formats).
// The record builder, the layout, the table, the summary and the bandwidth floor read these.
namespace metrics {
inline constexpr MetricColumn time{"time_us",
                                   "us",
                                   "time per operation as the table shows it (-a over ranks' means)",
                                   "time",
                                   "(us)",
                                   7,
                                   CellFormat::fitted,
                                   "time (us)"};
inline constexpr MetricColumn algbw{"algbw_gbps",
                                    "GB/s",
                                    "algorithm bandwidth: bytes / time; null where nothing moves (one rank, in place)",
                                    "algbw",
                                    "(GB/s)",
                                    6,
                                    CellFormat::fitted,
                                    "algbw (GB/s)"};
inline constexpr MetricColumn busbw{"busbw_gbps",
                                    "GB/s",
                                    "bus bandwidth: algbw times the collective's bus factor (nccl-tests)",
                                    "busbw",
                                    "(GB/s)",
                                    6,
                                    CellFormat::fitted,
                                    "busbw (GB/s)"};
inline constexpr MetricColumn wrong{"wrong",
                                    "elements",
                                    "wrong elements, summed over ranks; null when not checked",
                                    "#wrong",
                                    "",
                                    6,
                                    CellFormat::checked,
                                    "#wrong"};
inline constexpr MetricColumn faults{"faults_per_op",    "1/op",      "page faults per operation, most over ranks",
                                     "faults",           "(/op)",     9,
                                     CellFormat::per_op, "faults/op", true};
inline constexpr MetricColumn switches{
    "switches_per_op", "1/op", "context switches per operation, most over ranks", "csw", "(/op)", 7, CellFormat::per_op,
    "csw/op",          true};
inline constexpr MetricColumn device_time{
    "device_time_us",
    "us",
    "the device's events around the same timed blocks, per operation (-a over ranks' means)",
    "device",
    "(us)",
    10,
    CellFormat::time_us,
    "device (us)"};
inline constexpr MetricColumn start_time{
    "start_time_s",        kUnixTimeUnit.data(), "when the case started (root rank's clock)", "timestamp", "(UTC)", 24,
    CellFormat::timestamp, "timestamp (UTC)"};
}  // namespace metrics

// What a sweep adds to the plain shape of its records.
struct RecordShape {
  bool tensor_list = false;    // a --tensors sweep: how many tensors and how they were reduced (params)
  bool cycles = false;         // -N > 1: the "cycle" parameter
  bool timings = false;        // --timing a,b: the "timing" parameter (which method timed the record)
  bool timestamps = false;     // -S: the "start_time_s" metric
  bool device_beside = false;  // nccl-tests' timing on a device: the "device" phase and "device_time_us" metric
};

// The shape of a collective record (JSON and CSV columns).
RecordLayout collective_record_layout(const RecordShape& shape = {});

// `hosts[r]`: world rank r's host (may be shorter: hosts left blank).
Record collective_record(const CaseResult& r, const std::vector<std::string>& hosts);
std::vector<Record> collective_records(const std::vector<CaseResult>& row, const std::vector<std::string>& hosts);

}  // namespace distbench::collective
