// "Did you mean": the known word closest to a mistyped one, by edit distance, for commands, options and choices.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::cli {

// The optimal-string-alignment distance (Damerau-Levenshtein without substrings edited twice): the fewest inserted,
// deleted or replaced characters, or swapped neighbours, that turn `a` into `b`. Case matters.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `typed`, when it is close enough to be a likely typo: at most a third of the typed word's
// letters wrong (none in a word of one or two letters, but for their case), case ignored. The first of equally close
// candidates wins; nullopt when none is close.
std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" when a candidate is close to `typed`, else "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace distbench::cli
