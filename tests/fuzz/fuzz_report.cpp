// Fuzz target: the report reader (what `distbench compare` and `distbench report` read): report text through
// parse_report, the function read_report_file calls on the file's bytes. A parsed report is written back as JSON,
// shown in every view of `report` and compared with itself in every format of `compare`: whatever strings it
// carries, the Markdown holds no markup (no tag) and no view a control character but line breaks (corpus/report/hostile.json
// starts it with script tags, table breakers, terminal escapes and C0 bytes).
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
  fuzz::expecting_errors([&] {
    const ParsedReport report = parse_report(fuzz::as_text(data, size));
    FUZZ_EXPECT(report.schema_version >= 1);
    for (const Record& r : report.records) (void)record_json(r).dump();
    (void)run_info_json(report.info).dump();
    (void)layout_json(report.layout).dump();
    const std::string md = report_markdown(report);
    FUZZ_EXPECT(!has_markup(md) && !has_control_character(md));
    // every format of a run, made again from the report (the Markdown's code blocks show their lines as they are)
    for (const ReportFormat& format : report_formats()) {
      const auto reporter = format.make(std::string(kInMemoryReport));
      replay(report, *reporter);
      const std::string text = reporter->contents();
      if (format.name == "md") FUZZ_EXPECT(!has_markup(outside_code_blocks(text)) && !has_control_character(text));
    }
    FUZZ_EXPECT(!has_control_character(report_html(report), "\t\n\r"));
    (void)report_csv(report);
    const Comparison c = compare_reports({report}, report, {});
    const CompareSources sources{{"a.json"}, "b.json"};
    const std::string compared_md = compare_markdown(c, sources);
    FUZZ_EXPECT(!has_markup(compared_md) && !has_control_character(compared_md));
    FUZZ_EXPECT(!has_control_character(compare_junit(c, sources)));
    FUZZ_EXPECT(!has_control_character(compare_text(c)));
    FUZZ_EXPECT(!has_control_character(compare_html(c, sources), "\t\n\r"));
  });
  return 0;
}
