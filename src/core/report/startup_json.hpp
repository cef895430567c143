// The JSON form of a figure over ranks (RankDistribution: a large job's records, rank_summary, and the start-up) and of
// a run's start-up (core/report/startup.hpp), written and read back. Start-up's seconds stay seconds (keys end in _s).
#pragma once

#include "core/report/json_fields.hpp"
#include "core/report/startup.hpp"

#include <nlohmann/json.hpp>

namespace distbench {

// {"ranks", "min", "p05", "p25", "median", "p75", "p95", "max", "mean", "highest": [{rank, host, value}], "lowest"};
// the quantiles null when no rank had a value.
nlohmann::ordered_json rank_distribution_json(const RankDistribution& d);
RankDistribution rank_distribution_from(const JsonField& j);

// null when not measured; else {"phases": {"launch_s": distribution, ...}, "late_s": distribution, "ranks": [...] or
// null above kStartupRanksListed ranks}.
nlohmann::ordered_json startup_json(const StartupRecord& s);
StartupRecord startup_from(const JsonField& j);

}  // namespace distbench
