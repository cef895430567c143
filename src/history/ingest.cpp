#include "history/ingest.hpp"

#include "connectors/hmac_sha256.hpp"
#include "core/error.hpp"
#include "core/sys/text_file.hpp"
#include "history/case_identity.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <set>

namespace distbench::history {
namespace {

std::string sha256_hex(std::string_view text) {
  connectors::Sha256 h;
  h.update(text);
  std::string hex;
  for (std::uint8_t b : h.finish()) hex += fmt::format("{:02x}", b);
  return hex;
}

std::string modified_time(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  std::tm utc{};
  const std::time_t t = st.st_mtime;
  if (::gmtime_r(&t, &utc) == nullptr) return {};
  char text[32];
  return std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc) > 0 ? std::string(text) : std::string();
}

// The format of a file given as auto: JSON with "schema_version" is a distbench report, JSON with "results" and
// "version" nccl-tests' -J output; anything else is read as nccl-tests' text.
SourceFormat detect(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return SourceFormat::nccl_tests;
  // Look only at the top of the file: both writers put these keys first.
  const std::string_view head = text.substr(0, 4096);
  if (head.find("\"schema_version\"") != std::string_view::npos) return SourceFormat::distbench;
  if (head.find("\"nccl_version\"") != std::string_view::npos || head.find("\"args\"") != std::string_view::npos) {
    return SourceFormat::nccl_tests_json;
  }
  return SourceFormat::distbench;  // its reader says what is missing
}

}  // namespace

std::string_view name(SourceFormat f) {
  switch (f) {
    case SourceFormat::automatic: return "auto";
    case SourceFormat::distbench: return "distbench";
    case SourceFormat::nccl_tests: return "nccl-tests";
    case SourceFormat::nccl_tests_json: return "nccl-tests-json";
  }
  return "auto";
}

SourceFormat parse_source_format(std::string_view text) {
  for (SourceFormat f :
       {SourceFormat::automatic, SourceFormat::distbench, SourceFormat::nccl_tests, SourceFormat::nccl_tests_json}) {
    if (name(f) == text) return f;
  }
  throw usage_error(fmt::format("--format {}: use auto, distbench, nccl-tests or nccl-tests-json", text));
}

SourceFile read_source_file(const std::string& path) {
  return {path, read_text_file(path, "input", kIngestMaxBytes), modified_time(path)};
}

RunToStore read_run(const SourceFile& file, const IngestOptions& options) {
  check_text_length(options.label, "--label", file.path);
  check_text_length(options.commit, "--commit", file.path);
  check_text_length(options.machine, "--machine", file.path);
  const SourceFormat format = options.format == SourceFormat::automatic ? detect(file.text) : options.format;
  RunToStore run = format == SourceFormat::distbench         ? read_distbench(file, options)
                   : format == SourceFormat::nccl_tests_json ? read_nccl_tests_json(file, options)
                                                             : read_nccl_tests_text(file, options);
  if (run.cases.empty()) {
    throw usage_error(fmt::format("'{}' holds no measured case ({}); nothing to keep", file.path, name(format)));
  }
  if (run.cases.size() > kIngestMaxCases) {
    throw usage_error(fmt::format("'{}' holds {} cases, more than the {} a run may have", file.path, run.cases.size(),
                                  kIngestMaxCases));
  }
  std::set<std::string_view> keys;
  for (const CaseFigures& c : run.cases) {
    if (!keys.insert(c.key).second) {
      throw usage_error(
          fmt::format("'{}' holds the case '{}' twice; a run measures each case once", file.path, c.label));
    }
  }
  RunMeta& m = run.meta;
  m.source_file = std::filesystem::path(file.path).filename().string();
  m.source_format = std::string(name(format));
  m.label = options.label.empty() ? m.source_file : options.label;
  m.commit = options.commit;
  m.content_hash = sha256_hex(file.text);
  return run;
}

}  // namespace distbench::history
