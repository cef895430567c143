// Sizes as the model's options write them, each the project's size (core/measure/sizes: "64K", "1.5M") inside a small
// grammar, with the CLI11 validators that refuse anything else before a run starts:
// - a list item (--predict-sizes 1K:1G:4,64M, split on ',' by CLI11): one size, or a sweep MIN:MAX[:FACTOR] from MIN
//   by FACTOR (default 2, above 1 and at most 1024) while at most MAX;
// - a range with an open bound (--fit-sizes 64K:64M, 64K: or :32K).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace distbench::cli {

// The sizes one list item stands for, in sweep order; throws usage_error (without the option's name) on a bad item.
std::vector<std::uint64_t> sizes_of_item(const std::string& item);

struct SizeBounds {
  std::optional<std::uint64_t> min, max;
};
// MIN:MAX, MIN: or :MAX; throws usage_error (without the option's name) on a bad range or MIN above MAX.
SizeBounds size_bounds(const std::string& text);

// The same as checks: --help shows "SIZE|MIN:MAX[:FACTOR]" and "MIN:MAX".
CLI::Validator size_list_item();
CLI::Validator size_range();

}  // namespace distbench::cli
