// The sizes a fitted model refuses, and a probable cause for each. A point is refused when the robust fit gave it
// weight 0: its relative residual is beyond c = 4.685 robust scales (robust_fit.hpp). The cause is a guess from the
// evidence a report holds, in this order:
//   - page faults: the report counts page faults there on at least 1/16 of the case's bytes per operation (4 KiB
//     pages: buffers touched the first time);
//   - a cliff: slower than the model, and the time grew from the size before (same ranks) by over 1.3 times what the
//     model grows by (a protocol switch such as eager to rendezvous, or data that no longer fits a cache);
//   - after a cliff: slower than the model at the sizes right after a cliff (the same regime);
//   - latency-bound: the start-up term is most of the model's time (S < S_1/2), where per-call software costs vary
//     with the size in ways one alpha does not describe;
//   - faster than the model: data still in a cache, or a cheaper protocol at this size;
//   - slower than the model: contention, or the library switching to another algorithm at this size.
#pragma once

#include <string>
#include <vector>

namespace distbench::model {

struct PointFacts {
  int nranks = 0;
  double bytes = 0;
  double measured = 0;       // seconds
  double model = 0;          // seconds
  double latency_share = 0;  // a alpha / model: the start-up term's share of the model's time
  double faults_per_op = 0;  // NaN when not recorded
  bool refused = false;
};

// The cause of each refused point ("" for points the model holds); points sorted by ranks, then size.
std::vector<std::string> break_causes(const std::vector<PointFacts>& points);

// Refused points of the same ranks and cause at consecutive sizes, as lines: "p=4, 8 B .. 512 B: latency-bound ...".
std::vector<std::string> break_ranges(const std::vector<PointFacts>& points, const std::vector<std::string>& causes);

}  // namespace distbench::model
