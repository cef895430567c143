// Fuzz target: the report reader (what `distbench compare` and `distbench report` read): report text through
// parse_report, the function read_report_file calls on the file's bytes. A parsed report is written back as JSON,
// shown in every view of `report` and compared with itself in every format of `compare`: whatever strings it
// carries, the Markdown holds no markup (no tag) and no view a control character but line breaks (corpus/report/hostile.json
// starts it with script tags, table breakers, terminal escapes and C0 bytes).
#include "compare/compare_views.hpp"
#include "compare/comparison.hpp"
#include "core/report/json_model.hpp"
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
