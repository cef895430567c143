#include "cli/did_you_mean.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

namespace distbench::cli {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The letters of a word without the dashes of an option's name: "--maxbyte" has 7.
std::size_t letters(std::string_view s) {
  const auto first = s.find_first_not_of('-');
  return first == std::string_view::npos ? 0 : s.size() - first;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: the distance between the first i characters of a and the first j of b; three rows suffice.
  const std::size_t m = b.size();
  std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t replace = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string word = lower(typed);
  const std::size_t allowed = letters(typed) / 3;  // "2" is not a typo of "0"; "chek" is one of "check"
  std::size_t best = std::numeric_limits<std::size_t>::max();
  std::optional<std::string> found;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(word, lower(candidate));
    if (d < best) {
      best = d;
      found = candidate;
    }
  }
  if (best == 0 && found && *found == typed) return std::nullopt;  // not a typo: the word itself
  if (best > allowed) return std::nullopt;
  return found;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const auto found = closest(typed, candidates);
  return found ? fmt::format("; did you mean '{}'?", *found) : std::string();
}

}  // namespace distbench::cli
