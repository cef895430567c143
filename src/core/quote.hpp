// Showing untrusted text (a line of a hostfile, a value in a report, a path) inside a one-line error message: every
// byte that could break the line or the terminal is escaped, and long text is cut to an excerpt.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace distbench {

// How many code points an excerpt keeps before "...".
inline constexpr std::size_t kExcerptCodePoints = 80;

// `text` with control characters escaped: \n, \r, \t, a NUL and other C0 bytes and DEL as \xNN, C1 controls and
// the bidirectional overrides (U+202A..U+202E, U+2066..U+2069) as \uNNNN, and each byte that is not part of valid
// UTF-8 as \xNN. Valid UTF-8 is kept as it is. Nothing is cut.
std::string escape_text(std::string_view text);

// escape_text of at most `max_code_points` code points of `text` (an escape counts as one), followed by "..." when
// something was cut; the cut never splits a UTF-8 sequence or an escape.
std::string excerpt(std::string_view text, std::size_t max_code_points = kExcerptCodePoints);

}  // namespace distbench
