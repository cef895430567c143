#include "benchmarks/zero/plan.hpp"

namespace distbench::zero {

std::string_view name(Stage s) {
  switch (s) {
    case Stage::s0: return "0";
    case Stage::s1: return "1";
    case Stage::s2: return "2";
    case Stage::s3: return "3";
  }
  return "?";
}

std::string_view name(Zero1Reduce z) { return z == Zero1Reduce::allreduce ? "allreduce" : "reduce-scatter"; }

std::vector<StageRun> stage_runs(const ZeroPlan& plan) {
  std::vector<StageRun> runs;
  for (Stage s : plan.stages) {
    if (s != Stage::s1) {
      runs.push_back({s, Zero1Reduce::allreduce});
      continue;
    }
    for (Zero1Reduce z : plan.zero1) runs.push_back({s, z});
  }
  return runs;
}

}  // namespace distbench::zero
