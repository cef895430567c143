#include "core/sys/quote.hpp"
#include "tests/support/shell_output.hpp"

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
  EXPECT_EQ(escape_text("\xc3"), "\\xc3");                    // a sequence cut short
  EXPECT_EQ(escape_text("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escape_text("\x80x"), "\\x80x");                  // a stray continuation byte
}

TEST(Quote, HiddenCharactersAreEscaped) {
  EXPECT_EQ(escape_text("a\u202eb"), "a\\u202eb");  // right-to-left override
  EXPECT_EQ(escape_text("\u0085"), "\\u0085");      // a C1 control
}

TEST(Quote, ShortTextIsNotCut) { EXPECT_EQ(excerpt(std::string(80, 'x')), std::string(80, 'x')); }

TEST(Quote, LongTextIsCutTo80CodePoints) { EXPECT_EQ(excerpt(std::string(100000, 'x')), std::string(80, 'x') + "..."); }

TEST(Quote, CutNeverSplitsAUtf8Sequence) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "é";
  std::string expected;
  for (int i = 0; i < 80; ++i) expected += "é";
  EXPECT_EQ(excerpt(text), expected + "...");
  EXPECT_EQ(excerpt("日本語", 2), "日本...");
}

TEST(Quote, AnEscapeCountsAsOneAndIsNeverSplit) { EXPECT_EQ(excerpt("\0\0\0"s, 2), "\\x00\\x00..."); }

using test_support::shell_output;

TEST(Quote, ShellQuoteKeepsSafeWordsAndQuotesTheRest) {
  EXPECT_EQ(shell_quote("node-1.example.org"), "node-1.example.org");
  EXPECT_EQ(shell_quote("x;touch PWN"), "'x;touch PWN'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Quote, AShellReadsAQuotedWordBackAsItWas) {
  for (const std::string hostile : {"x;touch PWN", "$(id)", "`id`", "a'b\"c", "a b\tc", "*", "-n", "x\ny", "\\"}) {
    EXPECT_EQ(shell_output("printf '%s|' " + shell_quote(hostile)), hostile + "|") << hostile;
  }
}

TEST(Quote, HtmlEscapeMakesEntities) {
  EXPECT_EQ(html_escape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
}

TEST(Quote, XmlTextHasNoControlCharacterAndOnlyValidUtf8) {
  EXPECT_EQ(xml_text("case\x01<b>"), "case\\x01&lt;b&gt;");
  EXPECT_EQ(xml_text("vm\xff"), "vm\\xff");
  EXPECT_EQ(xml_text("nœud"), "nœud");
}

TEST(Quote, MarkdownTextIsInert) {
  EXPECT_EQ(markdown_text("a|b"), "a\\|b");
  EXPECT_EQ(markdown_text("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(markdown_text("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
  EXPECT_EQ(markdown_text("row\n| forged | row |"), "row \\| forged \\| row \\|");
  EXPECT_EQ(markdown_text("a\\b"), "a\\\\b");
  EXPECT_EQ(markdown_text("\x1b[31mred"), "\\\\x1b\\[31mred");
}

// Links, images, emphasis, inline code, strikethrough and headings from a report read as the text they are.
TEST(Quote, MarkdownTextKeepsNoInlineMarkupLive) {
  EXPECT_EQ(markdown_text("[l](javascript:alert(1))"), "\\[l\\](javascript:alert(1))");
  EXPECT_EQ(markdown_text("![i][ref]"), "!\\[i\\]\\[ref\\]");
  EXPECT_EQ(markdown_text("**bold** _em_ *it*"), "\\*\\*bold\\*\\* \\_em\\_ \\*it\\*");
  EXPECT_EQ(markdown_text("`code` ~~gone~~"), "\\`code\\` \\~\\~gone\\~\\~");
  EXPECT_EQ(markdown_text("# title"), "\\# title");
  EXPECT_EQ(markdown_text("   ## title"), "   \\## title");
  EXPECT_EQ(markdown_text("#wrong"), "\\#wrong");
  EXPECT_EQ(markdown_text("out-of-place #wrong"), "out-of-place #wrong");  // a '#' inside a line is text
  EXPECT_EQ(markdown_text("node_1 &amp;"), "node\\_1 &amp;amp;");
}

// Where the text would start a line: no list item, rule or underline; numbers and options stay as they are.
TEST(Quote, MarkdownTextStartsNoBlock) {
  EXPECT_EQ(markdown_text("- item"), "\\- item");
  EXPECT_EQ(markdown_text("+ item"), "\\+ item");
  EXPECT_EQ(markdown_text("12. item"), "12\\. item");
  EXPECT_EQ(markdown_text("3) item"), "3\\) item");
  EXPECT_EQ(markdown_text("---"), "\\---");
  EXPECT_EQ(markdown_text("==="), "\\===");
  EXPECT_EQ(markdown_text("  - x"), "  \\- x");
  EXPECT_EQ(markdown_text("-3.2%"), "-3.2%");
  EXPECT_EQ(markdown_text("1.50"), "1.50");
  EXPECT_EQ(markdown_text("--json out.json"), "--json out.json");
  EXPECT_EQ(markdown_text("a - b"), "a - b");
}

// Code points that act unseen show as escapes in every view: in terminal text, Markdown and HTML alike.
TEST(Quote, BidiAndInvisibleCharactersShowAsEscapesEverywhere) {
  for (const char* c : {"\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c", "\u200b", "\u200d",
                        "\u2060", "\ufeff", "\u00ad", "\u2028", "\u2029", "\U000e0041"}) {
    const std::string text = std::string("a") + c + "b";
    SCOPED_TRACE(escape_text(text));
    EXPECT_EQ(escape_text(text).find(c), std::string::npos);
    EXPECT_EQ(html_escape(text).find(c), std::string::npos);
    EXPECT_EQ(markdown_text(text).find(c), std::string::npos);
    EXPECT_NE(html_escape(text).find("\\u"), std::string::npos) << html_escape(text);
  }
  EXPECT_EQ(html_escape("case \u202edaer"), "case \\u202edaer");
  EXPECT_EQ(html_escape("n\u0153ud-\u65e5\U0001f600"), "n\u0153ud-\u65e5\U0001f600");  // visible text is kept
  EXPECT_EQ(html_escape("\xff<"), "\\xff&lt;");                                        // a byte that is not UTF-8
}

TEST(Quote, ValidUtf8ReplacesStrayBytesOnly) {
  EXPECT_EQ(valid_utf8("vm\xff"), "vm\xEF\xBF\xBD");
  EXPECT_EQ(valid_utf8("nœud-日本"), "nœud-日本");
  EXPECT_EQ(valid_utf8("\xC3"), "\xEF\xBF\xBD");  // a cut sequence
}

}  // namespace
}  // namespace distbench
