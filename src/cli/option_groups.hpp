// The groups a subcommand's --help shows its options in (CLI11's option groups), and their order: a subcommand's
// own groups first (ZeRO step, Model, Probes, ...), as added, then these. An option in the group kHidden is accepted
// but not shown (cli/help_formatter.hpp): nccl-tests' flags kept so that its command lines run, and options that do
// not apply to the collective given (-o, -r, --tensors; each warned about once given or refused with the reason); a
// benchmark's options it never uses are not declared (cli/common_options.hpp). Not CLI11's hidden group "": CLI11
// drops the name of an option in it from its errors, and a refused value must still name its option.
#pragma once

#include <array>
#include <string_view>

namespace distbench::cli::groups {

inline constexpr const char* kSweep = "Sweep";                // sizes, types, operators, root, placement, groups
inline constexpr const char* kSampling = "Sampling";          // samples, warm-up, timing, stopping rule, averaging
inline constexpr const char* kVerification = "Verification";  // checks, tolerances, floors
inline constexpr const char* kReports = "Reports";            // report files, table columns, console output
inline constexpr const char* kOutput = "Output";              // what a tool (list, info, report, compare) prints
inline constexpr const char* kBackend = "Backend";            // the backend and its settings, buffers
inline constexpr const char* kLaunch = "Launch";              // how the job forms, and how long a step may take
inline constexpr const char* kHidden = "Hidden";              // accepted, never shown

// The shared groups, in the order --help shows them after the subcommand's own.
inline constexpr std::array<std::string_view, 7> kOrder = {kSweep,  kSampling, kVerification, kReports,
                                                           kOutput, kBackend,  kLaunch};

}  // namespace distbench::cli::groups
