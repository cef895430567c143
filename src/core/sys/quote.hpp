// Untrusted text (a line of a hostfile, a value in a report, a host name, a path) made inert for where it is shown:
// a one-line message on a terminal (every byte that could break the line or the terminal escaped, long text cut to
// an excerpt), a command line a user may paste into a shell, HTML, XML, Markdown, and a Prometheus label.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace distbench {

// How many code points an excerpt keeps before "...".
inline constexpr std::size_t kExcerptCodePoints = 80;

// `text` with control characters escaped: \n, \r, \t, a NUL and other C0 bytes and DEL as \xNN, the code points that
// act without showing themselves as \uNNNN (C1 controls; the bidirectional controls U+061C, U+200E/F, U+202A..U+202E,
// U+2066..U+2069; zero-width and other invisible format characters such as U+200B..U+200D, U+2060..U+2064, U+FEFF,
// U+00AD, the tags U+E0000..; the separators U+2028/U+2029), and each byte that is not part of valid UTF-8 as \xNN.
// Other valid UTF-8 is kept as it is. Nothing is cut.
std::string escape_text(std::string_view text);

// escape_text of at most `max_code_points` code points of `text` (an escape counts as one), followed by "..." when
// something was cut; the cut never splits a UTF-8 sequence or an escape.
std::string excerpt(std::string_view text, std::size_t max_code_points = kExcerptCodePoints);

// `arg` as /bin/sh reads it back as one word: as it is when it holds only characters no shell treats specially,
// else in single quotes (each ' inside closed, escaped and reopened). `nodename=x;touch PWN` stays one argument.
std::string shell_quote(std::string_view arg);

// Text made safe for HTML and SVG content and attribute values: & < > " ' become entities, control characters other
// than tab and line breaks (which HTML forbids) the text \xNN, and, as escape_text shows them, the code points that
// act without showing themselves (a U+202E that would make a case read backwards shows as the text \u202e) and bytes
// that are not UTF-8. Every HTML view (report, compare, model, their plots) escapes its strings with it.
std::string html_escape(std::string_view text);

// Text for XML 1.0 (JUnit): escape_text's escapes (no control character, which XML forbids even as an entity; valid
// UTF-8 only), then html_escape's entities.
std::string xml_text(std::string_view text);

// Text made inert in Markdown (a table cell, a line of a pull-request comment): no HTML (&, <, > as entities), and a
// backslash before each character that is markup inline — \ | ` * _ ~ [ ] (no cell boundary, inline code, emphasis,
// strikethrough, link or image) — and before a heading's #, a list marker, a rule or an underline where the text
// would start a block; no line break; control characters and hidden code points as escape_text shows them. Every
// Markdown view (--md, report --format md, compare's Markdown, model's) passes each string of a report or of the
// environment through it, and keeps its own markup outside.
std::string markdown_text(std::string_view text);

// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD (what Prometheus' parser requires of a
// label value).
std::string valid_utf8(std::string_view text);

}  // namespace distbench
