// A collective case as a record: parameters collective/backend/dtype/op/placement/root/bytes/count/nranks/group/
// groups, one phase "time", metrics time/algbw/busbw/wrong/faults/switches, and each rank's mean time and OS counters.
#pragma once

#include "benchmarks/collective/case_result.hpp"
#include "core/report/layout.hpp"
#include "core/run_info.hpp"

#include <string>
#include <vector>

namespace distbench {

// What a sweep adds to the plain shape of its records.
struct RecordShape {
  bool tensor_list = false;  // a --tensors sweep: how many tensors and how they were reduced (params)
  bool cycles = false;       // -N > 1: the "cycle" parameter
  bool timestamps = false;   // -S: the "start_time_s" metric
  bool device_beside = false;  // nccl-tests' timing on a device: the "device" phase and "device_time_us" metric
};

// The shape of a collective record (JSON and CSV columns).
RecordLayout collective_record_layout(const RecordShape& shape = {});

// `hosts[r]`: world rank r's host (may be shorter: hosts left blank).
Record collective_record(const CaseResult& r, const std::vector<std::string>& hosts);
std::vector<Record> collective_records(const std::vector<CaseResult>& row, const std::vector<std::string>& hosts);

}  // namespace distbench
