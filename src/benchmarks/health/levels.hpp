// How much `distbench health` checks (--level): which phases run, and how long the probes measure. As DCGM's
// diagnostic levels: quick is each node's own state in seconds (a Slurm prolog before every job), standard adds
// every bandwidth across nodes and links (the default: a prolog can afford it), long adds the data-corruption soak
// and longer probes (after maintenance, or a node suspected of wrong results). docs/health.md, 'Levels'.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace distbench::health {

struct HealthPlan;

enum class Level { quick = 0, standard = 1, long_run = 2 };
std::string_view name(Level level);  // "quick", "standard", "long"
std::optional<Level> parse_level(std::string_view text);

// The least level that runs each phase. A new phase is one row here and one step in HealthRun's list (gpu and
// drift, both quick, come with their phases).
struct PhaseLevel {
  std::string_view phase;
  Level level;
};
inline constexpr std::array kPhaseLevels = {
    PhaseLevel{"start", Level::quick},          // late ranks (the run's start-up record)
    PhaseLevel{"gpu", Level::quick},            // NVML's state of each node's GPUs, XIDs, copies between GPUs
    PhaseLevel{"rank", Level::quick},           // memory touched and read back, copy bandwidth
    PhaseLevel{"clock", Level::quick},          // clock skew and offsets
    PhaseLevel{"drift", Level::quick},          // the node whose software or settings differ from most nodes'
    PhaseLevel{"node", Level::standard},        // allreduce inside each node
    PhaseLevel{"confirm", Level::quick},        // suspects re-tested alone
    PhaseLevel{"job", Level::standard},         // allreduce over every rank
    PhaseLevel{"links", Level::standard},       // every link, or the scaled schedule
    PhaseLevel{"isolation", Level::standard},   // suspect nodes and links re-tested
    PhaseLevel{"stragglers", Level::standard},  // ranks late at every collective
    PhaseLevel{"soak", Level::long_run},        // the data-corruption soak (soak.hpp)
};

// The phase's row; throws for a phase the table does not hold (a step added without its row).
Level phase_level(std::string_view phase);

// Whether the check of `plan` runs `phase`: its level is at most the plan's; the soak whenever it has a budget
// (--soak-seconds, which the long level defaults to kLongSoakSeconds and any level may set).
bool phase_runs(const HealthPlan& plan, std::string_view phase);

// Why `phase` runs but can test nothing on `nodes` nodes of `ranks` ranks ("links: not tested: one node, ..."; the
// phase's name first, so that the line reads alone), or nullopt when it can. Drift says so itself (drift.hpp).
std::optional<std::string> untested_reason(std::string_view phase, std::size_t nodes, int ranks);

// The long level's soak, when --soak-seconds does not say.
inline constexpr double kLongSoakSeconds = 60;

// The level's probe lengths and soak budget on a plan of the default lengths (`soak_seconds`: --soak-seconds when
// given). Long measures each figure longer: more copies, allreduce calls, latency round trips and straggler
// iterations, each bandwidth probe over 0.3 s instead of 0.1 s.
void apply_level(HealthPlan& plan, std::optional<double> soak_seconds);

}  // namespace distbench::health
