#include "core/quote.hpp"

#include <gtest/gtest.h>

#include <string>

namespace distbench {
namespace {

using namespace std::string_literals;

TEST(Quote, PlainTextIsKept) { EXPECT_EQ(escape_text("node1 slots=4"), "node1 slots=4"); }

TEST(Quote, ControlCharactersAndNulAreEscaped) {
  EXPECT_EQ(escape_text("a\0b"s), "a\\x00b");
  EXPECT_EQ(escape_text("a\nb\rc\td\x1b[31m\x7f"), "a\\nb\\rc\\td\\x1b[31m\\x7f");
}

TEST(Quote, ValidUtf8IsKept) { EXPECT_EQ(escape_text("nœud-é-日本-😀"), "nœud-é-日本-😀"); }

TEST(Quote, InvalidUtf8BytesAreEscaped) {
  EXPECT_EQ(escape_text("a\xff"), "a\\xff");
  EXPECT_EQ(escape_text("\xc3"), "\\xc3");                 // a sequence cut short
  EXPECT_EQ(escape_text("\xc0\xaf"), "\\xc0\\xaf");        // overlong '/'
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escape_text("\x80x"), "\\x80x");               // a stray continuation byte
}

TEST(Quote, HiddenCharactersAreEscaped) {
  EXPECT_EQ(escape_text("a\u202eb"), "a\\u202eb");  // right-to-left override
  EXPECT_EQ(escape_text("\u0085"), "\\u0085");      // a C1 control
}

TEST(Quote, ShortTextIsNotCut) { EXPECT_EQ(excerpt(std::string(80, 'x')), std::string(80, 'x')); }

TEST(Quote, LongTextIsCutTo80CodePoints) {
  EXPECT_EQ(excerpt(std::string(100000, 'x')), std::string(80, 'x') + "...");
}

TEST(Quote, CutNeverSplitsAUtf8Sequence) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "é";
  std::string expected;
  for (int i = 0; i < 80; ++i) expected += "é";
  EXPECT_EQ(excerpt(text), expected + "...");
  EXPECT_EQ(excerpt("日本語", 2), "日本...");
}

TEST(Quote, AnEscapeCountsAsOneAndIsNeverSplit) {
  EXPECT_EQ(excerpt("\0\0\0"s, 2), "\\x00\\x00...");
}

}  // namespace
}  // namespace distbench
