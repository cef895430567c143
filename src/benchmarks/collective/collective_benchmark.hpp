// `distbench <collective>` as a benchmark for the runner: the size sweep of one collective (sweep.hpp), its
// records (collective_record.hpp), nccl-tests' table and the reports' config and summary.
#pragma once

#include "benchmarks/collective/plan.hpp"
#include "core/benchmark.hpp"
#include "core/report/per_rank_file.hpp"

#include <cstdint>
#include <memory>

namespace distbench::collective {

class CollectiveBenchmark final : public Benchmark {
 public:
  explicit CollectiveBenchmark(SweepPlan plan)
      : plan_(std::move(plan)), per_rank_file_(std::make_unique<PerRankFile>(plan_.per_rank.file)) {}

  void check(World& world) const override;
  void use_backend_options(const BackendOptions& options) override { plan_.backend_options = options; }
  RunDescription describe(const RunInfo& info) const override;
  BenchmarkOutcome run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) override;
  std::vector<NamedPath> output_files() const override { return per_rank_file_->named(); }
  void mark_unfinished(const std::string& reason) const override { per_rank_file_->abandon(reason); }

 private:
  SweepPlan plan_;
  std::unique_ptr<PerRankFile> per_rank_file_;  // --per-rank-file (root rank)
};

// The parts of describe(), each on its own (unit-tested).
nlohmann::ordered_json collective_config(const SweepPlan& plan, const std::string& backend);
TableLayout collective_table(const SweepPlan& plan);
std::vector<SummaryItem> collective_summary(const std::vector<Record>& records);

}  // namespace distbench::collective
