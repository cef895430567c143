#include "tests/support/source_filter.hpp"

#include <gtest/gtest.h>

#include <fnmatch.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace distbench::testing_support {
namespace {

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(sep, begin), text.size());
    if (end > begin) parts.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

bool any_matches(const std::vector<std::string>& patterns, const std::string& name) {
  for (const std::string& p : patterns) {
    if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

// GoogleTest's filter syntax: positive patterns, then optionally '-' and negative ones, each list ':'-separated,
// with '*' and '?' as wildcards.
bool filter_matches(const std::string& filter, const std::string& name) {
  const std::size_t dash = filter.find('-');
  const std::string positive = dash == std::string::npos ? filter : filter.substr(0, dash);
  const std::vector<std::string> include = split(positive.empty() ? "*" : positive, ':');
  const std::vector<std::string> exclude =
      dash == std::string::npos ? std::vector<std::string>{} : split(std::string_view(filter).substr(dash + 1), ':');
  return any_matches(include, name) && !any_matches(exclude, name);
}

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string narrow_to_source(int& argc, char** argv) {
  constexpr std::string_view kFlag = "--source=";
  std::string source;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) == kFlag) {
      source = std::string(arg.substr(kFlag.size()));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  if (source.empty()) return "";

  const std::vector<std::string> files = split(source, ',');
  const std::string user_filter = GTEST_FLAG_GET(filter);
  const ::testing::UnitTest& all = *::testing::UnitTest::GetInstance();
  std::string narrowed;
  bool any_in_file = false;
  for (int s = 0; s < all.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *all.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(t);
      if (std::find(files.begin(), files.end(), base_name(info.file())) == files.end()) continue;
      any_in_file = true;
      const std::string name = std::string(info.test_suite_name()) + "." + info.name();
      if (!filter_matches(user_filter, name)) continue;
      (narrowed += narrowed.empty() ? "" : ":") += name;
    }
  }
  if (!any_in_file) return "--source=" + source + ": no test of this executable is defined in a file of that name";
  // A filter that names no test runs none (the user's filter excluded every test of the file).
  GTEST_FLAG_SET(filter, narrowed.empty() ? std::string("-*") : narrowed);
  return "";
}

}  // namespace distbench::testing_support
