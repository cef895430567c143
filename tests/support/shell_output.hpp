// What /bin/sh prints for a command line: for tests of text meant to be pasted into a shell (quoted words, drain
// lines), run by a real shell rather than judged by eye.
#pragma once

#include <cstdio>
#include <string>

namespace distbench::test_support {

// The standard output of `/bin/sh -c line` ("popen failed" when no shell could start).
inline std::string shell_output(const std::string& line) {
  std::string out;
  FILE* p = ::popen(line.c_str(), "r");
  if (p == nullptr) return "popen failed";
  char buffer[256];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, p)) out.append(buffer, n);
  ::pclose(p);
  return out;
}

}  // namespace distbench::test_support
