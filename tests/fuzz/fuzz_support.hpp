// What every fuzz target shares: bad input is expected to end in distbench::Error (what main prints as one line and
// maps to an exit code); any other exception escaping a parser is a finding, reported with its type and message
// before the process aborts, so that libFuzzer keeps the input. Invariants of a successful parse are checked with
// FUZZ_EXPECT, which aborts the same way.
#pragma once

#include "core/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

namespace distbench::fuzz {

[[noreturn]] inline void finding(const char* what, const char* detail) {
  std::fprintf(stderr, "fuzz finding: %s: %s\n", what, detail);
  std::fflush(stderr);
  std::abort();
}

// Runs `body`; distbench::Error is the expected end of bad input, anything else aborts.
template <typename Body>
void expecting_errors(Body&& body) {
  try {
    body();
  } catch (const Error&) {
    // bad input, told as one line: expected
  } catch (const std::exception& e) {
    const std::string what = std::string("unexpected exception ") + typeid(e).name();
    finding(what.c_str(), e.what());
  } catch (...) {
    finding("unexpected exception", "not a std::exception");
  }
}

inline std::string_view as_text(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace distbench::fuzz

#define FUZZ_EXPECT(condition)                                                    \
  do {                                                                            \
    if (!(condition)) ::distbench::fuzz::finding("invariant broken", #condition); \
  } while (false)
