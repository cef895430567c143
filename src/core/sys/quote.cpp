#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>

namespace distbench {
namespace {

// The length (2..4) of the valid UTF-8 sequence starting at text[i] and its code point, or 0 when the bytes there
// are not one (a stray continuation byte, an overlong form, a surrogate, a value past U+10FFFF, a cut sequence).
std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t& code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  char32_t min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, min = 0x80, code_point = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, min = 0x800, code_point = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, min = 0x10000, code_point = lead & 0x07u;
  } else {
    return 0;
  }
  if (text.size() - i < length) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3Fu);
  }
  if (code_point < min || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
  return length;
}

// Code points that change how the text around them reads without showing themselves: C1 controls, the
// bidirectional controls (embeddings, overrides, isolates, marks: text that reads in another order than it runs),
// zero-width and invisible format characters (joiners, the BOM, soft hyphens, invisible operators, fillers, tags)
// and the line and paragraph separators.
bool hidden(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0xAD || c == 0x34F || c == 0x61C || (c >= 0x115F && c <= 0x1160) ||
         (c >= 0x17B4 && c <= 0x17B5) || (c >= 0x180B && c <= 0x180F) || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0x3164 || c == 0xFEFF || c == 0xFFA0 ||
         (c >= 0xFFF0 && c <= 0xFFFB) || (c >= 0x1D173 && c <= 0x1D17A) || (c >= 0xE0000 && c <= 0xE0FFF);
}

// Appends the code point (or escaped byte) at text[i] to `out` and returns how many bytes of `text` it took.
std::size_t append_one(std::string_view text, std::size_t i, std::string& out) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    return 1;
  }
  char32_t code_point = 0;
  const std::size_t length = utf8_sequence(text, i, code_point);
  if (length == 0) {
    out += fmt::format("\\x{:02x}", c);
    return 1;
  }
  if (hidden(code_point)) {
    out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(code_point));
  } else {
    out.append(text.substr(i, length));
  }
  return length;
}

// Where `s` would start a block if it began a line of Markdown: a heading's '#', the marker of a list item ("- ",
// "+ ", "1. ", "1) ") or the first character of a rule or setext underline ("---", "==="), after at most three
// spaces; npos if none.
std::size_t block_marker(const std::string& s) {
  const std::size_t at = s.find_first_not_of(' ');
  if (at == std::string::npos || at > 3) return std::string::npos;
  const auto spaced = [&](std::size_t k) { return k >= s.size() || s[k] == ' ' || s[k] == '\t'; };
  const char first = s[at];
  if (first == '#') return at;
  if ((first == '-' || first == '+') && spaced(at + 1)) return at;
  if ((first == '-' || first == '=') && s.find_first_not_of(std::string(1, first) + " \t", at) == std::string::npos) {
    return at;
  }
  const std::size_t digits = s.find_first_not_of("0123456789", at);
  if (digits != std::string::npos && digits > at && digits - at <= 9 && (s[digits] == '.' || s[digits] == ')') &&
      spaced(digits + 1)) {
    return digits;
  }
  return std::string::npos;
}

}  // namespace

std::string escape_text(std::string_view text) { return excerpt(text, std::numeric_limits<std::size_t>::max()); }

std::string excerpt(std::string_view text, std::size_t max_code_points) {
  std::string out;
  std::size_t i = 0;
  for (std::size_t n = 0; i < text.size() && n < max_code_points; ++n) i += append_one(text, i, out);
  if (i < text.size()) out += "...";
  return out;
}

std::string shell_quote(std::string_view arg) {
  constexpr std::string_view kSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
  if (!arg.empty() && arg.find_first_not_of(kSafe) == std::string_view::npos) return std::string(arg);
  std::string quoted(1, '\'');
  for (char c : arg) {
    if (c == '\'') {
      quoted.append("'\\''");
    } else {
      quoted.push_back(c);
    }
  }
  quoted.push_back('\'');
  return quoted;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t':
      case '\n':
      case '\r': out += static_cast<char>(c); break;
      default:
        if (c >= 0x80) {  // valid UTF-8 as it is; hidden code points and stray bytes shown as escapes, as escape_text
          i += append_one(text, i, out);
          continue;
        }
        if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02x}", c);  // not allowed in HTML, even as &#1;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return out;
}

std::string xml_text(std::string_view text) { return html_escape(escape_text(text)); }

std::string markdown_text(std::string_view text) {
  std::string flat(text);
  for (char& c : flat) c = c == '\n' || c == '\r' ? ' ' : c;  // one line: a line break ends a table row
  const std::string shown = escape_text(flat);  // the other control characters and hidden code points escaped
  const std::size_t block_mark = block_marker(shown);
  std::string out;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const char c = shown[i];
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      // a backslash, a cell's end, inline code, emphasis, strikethrough, a link or image: read as text
      case '\\':
      case '|':
      case '`':
      case '*':
      case '_':
      case '~':
      case '[':
      case ']': (out += '\\') += c; break;
      default:
        if (i == block_mark) out += '\\';
        out += c;
    }
  }
  return out;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t code_point = 0;
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = c < 0x80 ? 1 : utf8_sequence(text, i, code_point);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace distbench
