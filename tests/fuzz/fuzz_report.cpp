// Fuzz target: the report reader (what `distbench compare` and `distbench report` read): report text through
// parse_report, the function read_report_file calls on the file's bytes. A parsed report is written back as JSON,
// shown in every view of `report` and compared with itself in every format of `compare`: whatever strings it
// carries, the Markdown holds no markup (no tag; no live inline code, link, image, strikethrough or emphasis but the
// views' own "**"), no view a control character but line breaks, and no Markdown or HTML view a code point that acts
// unseen (bidirectional controls, zero-width characters) (corpus/report/hostile.json starts it with script tags,
// table breakers, terminal escapes and C0 bytes; hostile_markdown.json with links, emphasis, backticks and U+202E).
#include "compare/compare_views.hpp"
#include "compare/comparison.hpp"
#include "core/report/json_model.hpp"
#include "core/report/replay.hpp"
#include "core/report/report_formats.hpp"
#include "views/report_views.hpp"

#include "fuzz_support.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// A C0 control character or DEL other than those `allowed`.
bool has_control_character(const std::string& text, std::string_view allowed = "\n") {
  return std::any_of(text.begin(), text.end(), [allowed](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 || u == 0x7F) && allowed.find(c) == std::string_view::npos;
  });
}

// Markup: '<' starting a tag, a comment or a declaration ("p < 0.01" is text).
bool has_markup(const std::string& text) {
  for (std::size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1)) {
    const char next = at + 1 < text.size() ? text[at + 1] : ' ';
    if (std::isalpha(static_cast<unsigned char>(next)) || next == '/' || next == '!' || next == '?') return true;
  }
  return false;
}

// Markdown that a reader would see as markup: after dropping each backslash escape (a backslash and the character
// after it), inline code (`), emphasis other than the views' own "**" runs (*, _), strikethrough (~), or a link or
// image ("](", "][": a bracket run straight into a target or a reference).
bool has_live_inline_markup(const std::string& text) {
  std::string bare;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
      continue;
    }
    bare += text[i];
  }
  if (bare.find_first_of("`_~") != std::string::npos) return true;
  if (bare.find("](") != std::string::npos || bare.find("][") != std::string::npos) return true;
  for (std::size_t at = bare.find('*'); at != std::string::npos; at = bare.find('*', at)) {
    const std::size_t end = bare.find_first_not_of('*', at);
    if ((end == std::string::npos ? bare.size() : end) - at != 2) return true;
    at = end;
  }
  return false;
}

// A code point that acts without showing itself, in UTF-8: the bidirectional controls (U+061C, U+200E/F,
// U+202A..U+202E, U+2066..U+2069), the zero-width ones (U+200B..U+200D, U+2060, U+FEFF) and the separators U+2028/9.
bool has_hidden_code_point(const std::string& text) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    const auto a = static_cast<unsigned char>(text[i]), b = static_cast<unsigned char>(text[i + 1]);
    if (a == 0xD8 && b == 0x9C) return true;
    if (i + 2 >= text.size()) continue;
    const auto c = static_cast<unsigned char>(text[i + 2]);
    if (a == 0xE2 && b == 0x80 && ((c >= 0x8B && c <= 0x8F) || (c >= 0xA8 && c <= 0xAE))) return true;
    if (a == 0xE2 && b == 0x81 && (c == 0xA0 || (c >= 0xA6 && c <= 0xA9))) return true;
    if (a == 0xEF && b == 0xBB && c == 0xBF) return true;
  }
  return false;
}

// The lines of Markdown `text` outside its fenced code blocks (whose lines are shown as text, not read as markup).
std::string outside_code_blocks(const std::string& text) {
  std::string out, fence;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t ticks = line.find_first_not_of('`');
    const std::string run = line.substr(0, ticks == std::string::npos ? line.size() : ticks);
    if (fence.empty() && run.size() >= 3) {
      fence = run;
    } else if (!fence.empty() && run.size() >= fence.size() && ticks == std::string::npos) {
      fence.clear();
    } else if (fence.empty()) {
      (out += line) += '\n';
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace distbench;
  using namespace distbench::views;
  fuzz::expecting_errors([&] {
    const ParsedReport report = parse_report(fuzz::as_text(data, size));
    FUZZ_EXPECT(report.schema_version >= 1);
    for (const Record& r : report.records) (void)record_json(r).dump();
    (void)run_info_json(report.info).dump();
    (void)layout_json(report.layout).dump();
    const std::string md = report_markdown(report);
    FUZZ_EXPECT(!has_markup(md) && !has_control_character(md));
    FUZZ_EXPECT(!has_live_inline_markup(md) && !has_hidden_code_point(md));
    // every format of a run, made again from the report (the Markdown's code blocks show their lines as they are)
    for (const ReportFormat& format : report_formats()) {
      const auto reporter = format.make(std::string(kInMemoryReport));
      replay(report, *reporter);
      const std::string text = reporter->contents();
      if (format.name == "md") {
        const std::string outside = outside_code_blocks(text);
        FUZZ_EXPECT(!has_markup(outside) && !has_control_character(text));
        FUZZ_EXPECT(!has_live_inline_markup(outside) && !has_hidden_code_point(text));
      }
    }
    const std::string html = report_html(report);
    FUZZ_EXPECT(!has_control_character(html, "\t\n\r") && !has_hidden_code_point(html));
    (void)report_csv(report);
    compare::CompareOptions one_run;  // one run a side is judged only without a test
    one_run.threshold_only = true;
    const compare::Comparison c = compare::compare_reports({report}, report, one_run);
    const compare::CompareSources sources{{"a.json"}, "b.json"};
    const std::string compared_md = compare::compare_markdown(c, sources);
    FUZZ_EXPECT(!has_markup(compared_md) && !has_control_character(compared_md));
    FUZZ_EXPECT(!has_live_inline_markup(compared_md) && !has_hidden_code_point(compared_md));
    FUZZ_EXPECT(!has_control_character(compare::compare_junit(c, sources)));
    FUZZ_EXPECT(!has_control_character(compare::compare_text(c)));
    const std::string compared_html = compare::compare_html(c, sources);
    FUZZ_EXPECT(!has_control_character(compared_html, "\t\n\r") && !has_hidden_code_point(compared_html));
  });
  return 0;
}
