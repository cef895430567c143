// The JSON form of the result model (schema: reports/SCHEMA.md). JSON is the source of truth of a report; the
// regression gate reads reports back with parse_report_json. Times are seconds in the model and microseconds in
// JSON; bandwidths are GB/s (1e9 B/s) in both.
//
// Includes nlohmann/json: include this header only where JSON is built or read, not from widely used headers.
#pragma once

#include "core/plan.hpp"
#include "core/results.hpp"

#include <nlohmann/json.hpp>

#include <string_view>
#include <vector>

namespace distbench {

inline constexpr int kReportSchemaVersion = 1;

// One result: {collective, backend, dtype, ..., time_us: {...}, rank_time_us: {...}, samples_us: [...], ...}.
void to_json(nlohmann::json& j, const CaseResult& r);
void from_json(const nlohmann::json& j, CaseResult& r);

// The run's top-level fields: schema_version, tool, argv, start_time, end_time, status, error, environment.
void to_json(nlohmann::json& j, const RunInfo& info);
void from_json(const nlohmann::json& j, RunInfo& info);

// The plan as the report's "config" object (one way: a report is not read back into a plan).
void to_json(nlohmann::json& j, const SweepPlan& plan);

// The whole report: the run's fields, "config" and "results".
nlohmann::json make_report_json(const RunInfo& info, const SweepPlan& plan, const std::vector<CaseResult>& results);

struct ParsedReport {
  RunInfo info;
  nlohmann::json config;
  std::vector<CaseResult> results;
  int schema_version = 0;
};

// Reads a report. Throws distbench::usage_error on malformed text, missing or mistyped fields, or a
// schema_version this build does not read.
ParsedReport parse_report_json(std::string_view text);

}  // namespace distbench
