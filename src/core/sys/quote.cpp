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

bool hidden(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
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
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': case '\n': case '\r': out += c; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));  // not allowed in HTML, even as &#1;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string xml_text(std::string_view text) { return html_escape(escape_text(text)); }

std::string markdown_text(std::string_view text) {
  std::string flat(text);
  for (char& c : flat) c = c == '\n' || c == '\r' ? ' ' : c;  // one line: a line break ends a table row
  std::string out;
  for (char c : escape_text(flat)) {  // the other control characters escaped
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '|': out += "\\|"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out += c;
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
