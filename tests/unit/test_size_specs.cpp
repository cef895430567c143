// The model's size options: a list item (a size or a sweep MIN:MAX[:FACTOR]) and a range with open bounds, what each
// accepts, the message for what it refuses, and the rule --help shows.
#include "cli/size_specs.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

using Sizes = std::vector<std::uint64_t>;

std::string refusal(const CLI::Validator& v, std::string text) { return v(text); }

std::string refusal_of_item(const std::string& item) {
  try {
    sizes_of_item(item);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage) << item;
    return e.what();
  }
  return {};
}

TEST(SizeSpecs, AListItemIsOneSizeOrASweep) {
  EXPECT_EQ(sizes_of_item("64K"), Sizes{65536});
  EXPECT_EQ(sizes_of_item("1.5K"), Sizes{1536});
  EXPECT_EQ(sizes_of_item("1K:8K"), (Sizes{1024, 2048, 4096, 8192}));  // by factor 2
  EXPECT_EQ(sizes_of_item("1K:64K:4"), (Sizes{1024, 4096, 16384, 65536}));
  EXPECT_EQ(sizes_of_item("1K:10K:4"), (Sizes{1024, 4096}));  // never past MAX
  EXPECT_EQ(sizes_of_item("8:8"), Sizes{8});
}

TEST(SizeSpecs, ABadItemSaysWhatIsWrong) {
  EXPECT_NE(refusal_of_item("8Q").find("'8Q' is not a size"), std::string::npos);
  EXPECT_EQ(refusal_of_item("0"), "sizes must be at least 1 byte");
  EXPECT_EQ(refusal_of_item("0:1K"), "sizes must be at least 1 byte");
  for (const std::string item : {"1K:", ":1K", "1K:1M:", "1K:1M:2:2"}) {
    EXPECT_EQ(refusal_of_item(item), "'" + item + "': give a size, MIN:MAX or MIN:MAX:FACTOR, e.g. 1K:1G");
  }
  EXPECT_EQ(refusal_of_item("1M:1K"), "'1M:1K': the sweep's first size (1 MiB) is above its last (1 KiB)");
  for (const char* factor : {"1", "0.5", "x", "2048", "nan"}) {
    EXPECT_EQ(refusal_of_item(std::string("1K:1M:") + factor),
              std::string("factor '") + factor + "' must be a number above 1 and at most 1024, e.g. 1K:1G:4");
  }
  // too many sizes: the advice is this grammar's, not the sweep's -f/--stepfactor (model has no such flag)
  const std::string many = refusal_of_item("1:1G:1.0001");
  EXPECT_EQ(many,
            "'1:1G:1.0001' would hold more than 10000 sizes; give a larger FACTOR (the third number, e.g. "
            "1:1G:4) or a narrower MIN:MAX");
  EXPECT_EQ(many.find("stepfactor"), std::string::npos);
}

TEST(SizeSpecs, ARangeHasOneOrTwoBounds) {
  const SizeBounds both = size_bounds("64K:64M");
  EXPECT_EQ(both.min, 65536U);
  EXPECT_EQ(both.max, 67108864U);
  EXPECT_EQ(size_bounds("64K:").min, 65536U);
  EXPECT_FALSE(size_bounds("64K:").max);
  EXPECT_FALSE(size_bounds(":32K").min);
  EXPECT_EQ(size_bounds(":32K").max, 32768U);
  EXPECT_EQ(size_bounds("1K:1K").max, 1024U);
}

TEST(SizeSpecs, TheValidatorsRefuseWithTheParsersWords) {
  const auto item = size_list_item();
  EXPECT_EQ(refusal(item, "1K:1G:4"), "");
  EXPECT_EQ(refusal(item, "64M"), "");
  EXPECT_EQ(refusal(item, "1M:1K"), "'1M:1K': the sweep's first size (1 MiB) is above its last (1 KiB)");
  EXPECT_EQ(item.get_description(), "SIZE|MIN:MAX[:FACTOR]");
  const auto range = size_range();
  EXPECT_EQ(refusal(range, "64K:"), "");
  EXPECT_EQ(refusal(range, ":"), "':': give MIN:MAX, MIN: or :MAX, e.g. 64K:64M");
  EXPECT_EQ(refusal(range, "64K"), "'64K': give MIN:MAX, MIN: or :MAX, e.g. 64K:64M");
  EXPECT_EQ(refusal(range, "1:2:3"), "'1:2:3': give MIN:MAX, MIN: or :MAX, e.g. 64K:64M");
  EXPECT_EQ(refusal(range, "1M:1K"), "'1M:1K': the smallest size (1 MiB) is above the largest (1 KiB)");
  EXPECT_NE(refusal(range, "1X:").find("'1X' is not a size"), std::string::npos);
  EXPECT_EQ(range.get_description(), "MIN:MAX");
}

// CLI11 splits the list on ',' and checks every item; a bad one is refused with the option's name.
TEST(SizeSpecs, AnOptionSplitsItsListAndChecksEachItem) {
  CLI::App app;
  std::vector<std::string> items;
  app.add_option("--predict-sizes", items)->delimiter(',')->check(size_list_item());
  app.parse("--predict-sizes 1K:4K,64M");
  EXPECT_EQ(items, (std::vector<std::string>{"1K:4K", "64M"}));
  items.clear();
  try {
    app.parse("--predict-sizes 64M,8Q");
    ADD_FAILURE() << "8Q was accepted";
  } catch (const CLI::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("--predict-sizes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'8Q' is not a size"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distbench::cli
