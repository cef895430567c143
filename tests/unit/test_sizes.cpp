// Sizes as users type them (binary suffixes: 1K = 1024), nccl-tests' -b/-e/-f/-i sweep, and the human form.
#include "core/measure/sizes.hpp"

#include "core/error.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace distbench {
namespace {

using ::testing::HasSubstr;
using Sizes = std::vector<std::uint64_t>;

// The message of the usage_error that `f` throws; fails the test when it throws nothing or something else.
template <typename F>
std::string usage_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no usage_error was thrown";
  return {};
}

TEST(ParseSize, PlainBytes) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("1000"), 1000u);
  EXPECT_EQ(parse_size("8B"), 8u);
  EXPECT_EQ(parse_size("8b"), 8u);
  EXPECT_EQ(parse_size("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
}

TEST(ParseSize, BinarySuffixesInAnyCaseAndForm) {
  EXPECT_EQ(parse_size("1K"), 1024u);
  EXPECT_EQ(parse_size("1k"), 1024u);
  EXPECT_EQ(parse_size("64M"), 64u << 20);
  EXPECT_EQ(parse_size("64m"), 64u << 20);
  EXPECT_EQ(parse_size("64MB"), 64u << 20);
  EXPECT_EQ(parse_size("64mb"), 64u << 20);
  EXPECT_EQ(parse_size("64MiB"), 64u << 20);
  EXPECT_EQ(parse_size("64mib"), 64u << 20);
  EXPECT_EQ(parse_size("2G"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_size("2GiB"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_size("3T"), std::uint64_t{3} << 40);
  EXPECT_EQ(parse_size("3tb"), std::uint64_t{3} << 40);
  EXPECT_EQ(parse_size("16777215T"), std::uint64_t{16777215} << 40);
  EXPECT_EQ(parse_size("1Ki"), 1024u);
  EXPECT_EQ(parse_size("1KiB"), 1024u);
  EXPECT_EQ(parse_size("1KB"), 1024u);
  EXPECT_EQ(parse_size("1MiB"), 1u << 20);
  EXPECT_EQ(parse_size("1Mi"), 1u << 20);
  EXPECT_EQ(parse_size("2gi"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_size("3Ti"), std::uint64_t{3} << 40);
}

// nccl-tests reads sizes as floating point ("-e 1.5M"); distbench takes the same text, rounded down to whole bytes.
TEST(ParseSize, FractionsRoundDownToWholeBytes) {
  EXPECT_EQ(parse_size("1.5M"), 1572864u);
  EXPECT_EQ(parse_size("1.5MiB"), 1572864u);
  EXPECT_EQ(parse_size("0.5K"), 512u);
  EXPECT_EQ(parse_size(".5K"), 512u);
  EXPECT_EQ(parse_size("1.0G"), std::uint64_t{1} << 30);
  EXPECT_EQ(parse_size("0.001K"), 1u);  // 1.024 bytes
  EXPECT_EQ(parse_size("0.0009K"), 0u);
  EXPECT_EQ(parse_size("1.5"), 1u);
  EXPECT_EQ(parse_size("2.75T"), (std::uint64_t{11} << 40) / 4);
  EXPECT_EQ(parse_size("0.1M"), 104857u);  // 104857.6
  EXPECT_EQ(parse_size("0.33333333333333333333333K"), 341u);
  EXPECT_EQ(parse_size("16777215.5T"), (std::uint64_t{16777215} << 40) + (std::uint64_t{1} << 39));
}

TEST(ParseSize, GarbageSaysWhatASizeLooksLike) {
  EXPECT_EQ(usage_message([] { parse_size("12Q"); }),
            "'12Q' is not a size; write a number of bytes, whole or with a fraction, and an optional binary suffix K, "
            "M, G or T (also KB, KiB, Ki, ...), e.g. 64M or 1.5M");
  for (const char* bad :
       {"",     "-1",  "-1K",  "-1M",  "+5",  "K",   "M",     "1X",  "1.5.2M", "1.", "1.M", ".",   ".M",
        "12 M", " 12", "12M ", "0x10", "1e6", "1KK", "1KiBB", "1iB", "1i",     "1P", "abc", "1,5M"}) {
    EXPECT_THAT(usage_message([bad] { parse_size(bad); }), HasSubstr("is not a size")) << "input: '" << bad << "'";
  }
}

TEST(ParseSize, AnOptionsValueNamesTheOption) {
  EXPECT_THAT(usage_message([] { parse_size_option("-e/--maxbytes", "8Q"); }),
              ::testing::StartsWith("-e/--maxbytes: '8Q' is not a size"));
  EXPECT_THAT(usage_message([] { parse_size_option("-b/--minbytes", "99999999999999999999T"); }),
              ::testing::StartsWith("-b/--minbytes: '99999999999999999999T' is too large"));
  EXPECT_EQ(parse_size_option("-b/--minbytes", "1.5K"), 1536u);
}

TEST(ParseSize, OverflowIsAUsageError) {
  EXPECT_THAT(usage_message([] { parse_size("18446744073709551616"); }), HasSubstr("too large"));
  EXPECT_THAT(usage_message([] { parse_size("99999999999999999999999"); }), HasSubstr("too large"));
  EXPECT_THAT(usage_message([] { parse_size("16777216T"); }), HasSubstr("'16777216T' is too large"));
  EXPECT_THAT(usage_message([] { parse_size("17179869184G"); }), HasSubstr("too large"));
}

TEST(SizeSweep, MultipliesByTheFactor) {
  EXPECT_EQ(size_sweep(8, 128, 2, 0), (Sizes{8, 16, 32, 64, 128}));
  EXPECT_EQ(size_sweep(8, 127, 2, 0), (Sizes{8, 16, 32, 64}));
  EXPECT_EQ(size_sweep(1, 100, 10, 0), (Sizes{1, 10, 100}));
  EXPECT_EQ(size_sweep(64, 64, 2, 0), (Sizes{64}));
}

TEST(SizeSweep, FactorWinsOverStep) {
  // nccl-tests: the factor is used when it is above 1, the step otherwise.
  EXPECT_EQ(size_sweep(8, 64, 2, 1000), (Sizes{8, 16, 32, 64}));
}

TEST(SizeSweep, FractionalFactorRoundsDownButAlwaysAdvances) {
  // floor(1 * 1.5) = 1 would repeat: max(cur + 1, floor(cur * 1.5)) gives 2, then 3, 4, 6, 9, 13
  EXPECT_EQ(size_sweep(1, 13, 1.5, 0), (Sizes{1, 2, 3, 4, 6, 9, 13}));
  EXPECT_EQ(size_sweep(3, 3, 1.01, 0), (Sizes{3}));
}

TEST(SizeSweep, AddsTheStepWhenTheFactorIsOne) {
  EXPECT_EQ(size_sweep(1024, 4096, 1, 1024), (Sizes{1024, 2048, 3072, 4096}));
  EXPECT_EQ(size_sweep(1, 10, 0.5, 4), (Sizes{1, 5, 9}));
}

TEST(SizeSweep, StopsWithoutOverflowNearTheTop) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(size_sweep(kMax - 1, kMax, 1, 5), (Sizes{kMax - 1}));
  EXPECT_EQ(size_sweep(kMax, kMax, 1, 1), (Sizes{kMax}));
  EXPECT_EQ(size_sweep(std::uint64_t{1} << 62, kMax, 2, 0), (Sizes{std::uint64_t{1} << 62, std::uint64_t{1} << 63}));
}

TEST(SizeSweep, RejectsNoProgress) {
  EXPECT_EQ(usage_message([] { size_sweep(8, 64, 1, 0); }), "-f/--stepfactor must be > 1 or -i/--stepbytes > 0");
  EXPECT_THAT(usage_message([] { size_sweep(8, 64, 0.5, 0); }), HasSubstr("-f/--stepfactor must be > 1"));
}

TEST(SizeSweep, RejectsMinAboveMaxNamingBoth) {
  const std::string message = usage_message([] { size_sweep(1 << 20, 1024, 2, 0); });
  EXPECT_THAT(message, HasSubstr("-b/--minbytes must not exceed -e/--maxbytes"));
  EXPECT_THAT(message, HasSubstr("1048576"));
  EXPECT_THAT(message, HasSubstr("1024"));
}

TEST(SizeSweep, RejectsZeroBytes) {
  EXPECT_THAT(usage_message([] { size_sweep(0, 64, 2, 0); }), HasSubstr("sizes start at 1 byte"));
}

TEST(SizeSweep, GuardsTheNumberOfSizes) {
  EXPECT_EQ(size_sweep(1, kMaxSweepSizes, 1, 1).size(), kMaxSweepSizes);
  EXPECT_THAT(usage_message([] { size_sweep(1, kMaxSweepSizes + 1, 1, 1); }), HasSubstr("raise -f/--stepfactor"));
  EXPECT_THAT(usage_message([] { size_sweep(1, 1ull << 40, 1.0001, 0); }), HasSubstr("more than 10000 sizes"));
}

TEST(FormatBytes, ExactMultiplesHaveNoDecimals) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(8), "8 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1 KiB");
  EXPECT_EQ(format_bytes(64u << 20), "64 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{2} << 30), "2 GiB");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 40), "3 TiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 50), "1 PiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 60), "1 EiB");
  EXPECT_EQ(format_bytes(3072), "3 KiB");
}

TEST(FormatBytes, OtherSizesHaveUpToTwoDecimals) {
  EXPECT_EQ(format_bytes(3u << 19), "1.5 MiB");
  EXPECT_EQ(format_bytes(1280), "1.25 KiB");
  EXPECT_EQ(format_bytes(1025), "1 KiB");     // 1.0009..., rounded
  EXPECT_EQ(format_bytes(1100), "1.07 KiB");  // 1.0742...
  EXPECT_EQ(format_bytes(1048575), "1 MiB");  // 1023.999 KiB rounds into the next unit
  EXPECT_EQ(format_bytes(1048064), "1023.5 KiB");
  EXPECT_EQ(format_bytes(std::numeric_limits<std::uint64_t>::max()), "16 EiB");
}

}  // namespace
}  // namespace distbench
