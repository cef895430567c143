// The mutation suite of the checker (Device::count_wrong): each mutant is a device that forwards every call to a real
// host device and counts wrong elements with one deliberate mistake. check_checker (core/device/checker_check.hpp)
// must catch each of them; the same counting without a mistake (CheckerMutant::none) must pass, so that what catches
// a mutant is its mistake, not the harness.
#pragma once

#include "core/device/element.hpp"
#include "tests/support/forwarding_device.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace distbench {

enum class CheckerMutant {
  none,         // the test's own element-by-element comparison, right
  skips_last,   // j < count - 1: the last element of each block never compared
  skips_first,  // j = 1: the first element of each block never compared
  every_other,  // j += 2: only the even elements of each block compared
  short_count,  // the real checker called with call_count - 1 (the "checker that skips the last element")
  counts_none,  // always 0: passes everything
};

inline constexpr CheckerMutant kCheckerMutants[] = {CheckerMutant::skips_last, CheckerMutant::skips_first,
                                                    CheckerMutant::every_other, CheckerMutant::short_count,
                                                    CheckerMutant::counts_none};

inline std::string_view name(CheckerMutant m) {
  switch (m) {
    case CheckerMutant::none: return "none";
    case CheckerMutant::skips_last: return "skips_last";
    case CheckerMutant::skips_first: return "skips_first";
    case CheckerMutant::every_other: return "every_other";
    case CheckerMutant::short_count: return "short_count";
    case CheckerMutant::counts_none: return "counts_none";
  }
  return "?";
}

class MutantCheckerDevice final : public ForwardingDevice {
 public:
  MutantCheckerDevice(Device& host, CheckerMutant mutant) : ForwardingDevice(host), mutant_(mutant) {}

  std::uint64_t count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) override {
    if (mutant_ == CheckerMutant::counts_none) return 0;
    if (mutant_ == CheckerMutant::short_count) {
      CheckSpec shorter = spec;
      shorter.call_count -= 1;
      return real().count_wrong(at, dtype, shorter);
    }
    // The expected result, uncorrupted, from the real device (host memory), compared byte for byte.
    const auto blocks =
        expected_blocks(spec.collective, spec.first_rank, spec.pattern.nranks, spec.call_count, spec.root);
    std::uint64_t extent = 0;
    for (const auto& b : blocks) extent = std::max(extent, b.offset + b.count);
    const std::size_t elem = size_of(dtype);
    const auto expected = real().allocate(extent * elem);
    real().fill_expected({expected.get(), 0}, dtype, spec, {});
    const auto* got = static_cast<const std::byte*>(at.data());
    const auto* want = static_cast<const std::byte*>(expected->data());
    std::uint64_t wrong = 0;
    for (const auto& b : blocks) {
      const std::uint64_t first = mutant_ == CheckerMutant::skips_first ? 1 : 0;
      const std::uint64_t end = mutant_ == CheckerMutant::skips_last && b.count > 0 ? b.count - 1 : b.count;
      const std::uint64_t step = mutant_ == CheckerMutant::every_other ? 2 : 1;
      for (std::uint64_t j = first; j < end; j += step) {
        const std::size_t at_byte = (b.offset + j) * elem;
        wrong += std::memcmp(got + at_byte, want + at_byte, elem) != 0 ? 1 : 0;
      }
    }
    return wrong;
  }

 private:
  CheckerMutant mutant_;
};

}  // namespace distbench
