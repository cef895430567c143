// Fuzz target: the report reader (what `distbench compare` and `distbench report` read): report text through
// parse_report, the function read_report_file calls on the file's bytes. A parsed report is written back as JSON.
#include "core/report/json_model.hpp"

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace distbench;
  fuzz::expecting_errors([&] {
    const ParsedReport report = parse_report(fuzz::as_text(data, size));
    FUZZ_EXPECT(report.schema_version >= 1);
    for (const Record& r : report.records) (void)record_json(r).dump();
    (void)run_info_json(report.info).dump();
    (void)layout_json(report.layout).dump();
  });
  return 0;
}
