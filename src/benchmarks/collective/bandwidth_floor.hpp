// --min-busbw / --min-algbw (/ --min-busbw-at SIZE): a floor under the sweep's bandwidth, for CI jobs that must fail
// when a link is slow (nccl-tests has NCCL_TESTS_MIN_BW for the same purpose). Without SIZE the figure is the
// average over measured results (nccl-tests' "Avg bus bandwidth"); with it, the lowest result at sizes >= SIZE,
// so that every large size must clear the floor.
#pragma once

#include "core/report/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::collective {

struct BandwidthFloor {
  double min_busbw = 0;        // GB/s; 0: none
  double min_algbw = 0;        // GB/s; 0: none
  std::uint64_t at_bytes = 0;  // 0: judge the average; else the lowest result at sizes >= this
  bool active() const { return min_busbw > 0 || min_algbw > 0; }
};

struct FloorVerdict {
  bool ok = true;
  std::string text;  // "avg busbw 2.92 GB/s >= 2.00 GB/s (--min-busbw)", one clause per floor
};

FloorVerdict judge_floor(const std::vector<Record>& records, const BandwidthFloor& floor);

}  // namespace distbench::collective
