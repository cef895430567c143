#include "core/report/json_fields.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace distbench {
namespace {

using json = nlohmann::ordered_json;

// The message of the usage_error `read` throws; fails the test if none.
template <typename F>
std::string error_of(F read) {
  try {
    read();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

constexpr auto kFieldMax = std::numeric_limits<std::int64_t>::max();

TEST(JsonFields, PathsNameMembersAndElements) {
  const json j = json::parse(R"({"records": [{"a": 1}, {"a": 2, "samples": -1}]})");
  const JsonField top(j, "");
  const auto records = top.at("records").elements();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].at("samples").path(), "records[1].samples");
  EXPECT_EQ(error_of([&] { records[1].at("samples").count(); }),
            "field 'records[1].samples' must be a non-negative integer, found -1");
  EXPECT_EQ(error_of([&] { records[0].at("samples"); }), "field 'records[0].samples' is missing");
}

TEST(JsonFields, IntegerWithinItsRange) {
  const json j = json::parse(R"({"a": 7, "big": 4294967297, "huge": 18446744073709551615, "neg": -3})");
  const JsonField top(j, "");
  EXPECT_EQ(top.at("a").integer(0, 10), 7);
  EXPECT_EQ(top.at("big").integer(0, kFieldMax), 4294967297);
  EXPECT_EQ(error_of([&] { top.at("big").int_in(0, 2147483647); }),
            "field 'big' must be an integer from 0 to 2147483647, found 4294967297");
  EXPECT_EQ(error_of([&] { top.at("huge").integer(0, kFieldMax); }),
            "field 'huge' must be a non-negative integer, found 18446744073709551615");
  EXPECT_EQ(top.at("neg").integer(-5, 5), -3);
  EXPECT_EQ(error_of([&] { top.at("neg").integer(1, kFieldMax); }), "field 'neg' must be a positive integer, found -3");
}

TEST(JsonFields, AFloatIsNeverConvertedToAnInteger) {
  const json j = json::parse(R"({"root": 1e300, "whole": 2.0, "nan": null, "text": "3"})");
  const JsonField top(j, "");
  EXPECT_EQ(error_of([&] { top.at("root").int_in(-1, 2147483647); }),
            "field 'root' must be an integer from -1 to 2147483647, found 1e+300");
  EXPECT_NE(error_of([&] { top.at("whole").count(); }).find("found 2.0"), std::string::npos);
  EXPECT_NE(error_of([&] { top.at("nan").count(); }).find("found null"), std::string::npos);
  EXPECT_NE(error_of([&] { top.at("text").count(); }).find("found \"3\""), std::string::npos);
}

TEST(JsonFields, NumbersAreFiniteAndNullIsNaN) {
  const json j = json::parse(R"({"x": 1.5, "i": 3, "n": null, "s": "1"})");
  const JsonField top(j, "");
  EXPECT_EQ(top.at("x").number(), 1.5);
  EXPECT_EQ(top.at("i").number(), 3.0);
  EXPECT_TRUE(std::isnan(top.at("n").number_or_nan()));
  EXPECT_EQ(error_of([&] { top.at("n").number(); }), "field 'n' must be a finite number, found null");
  EXPECT_EQ(error_of([&] { top.at("s").number_or_nan(); }), "field 's' must be a finite number or null, found \"1\"");
}

TEST(JsonFields, TextsBooleansAndContainers) {
  const json j = json::parse(R"({"s": "abc", "n": null, "b": true, "o": {}, "a": [1]})");
  const JsonField top(j, "");
  EXPECT_EQ(top.at("s").text(), "abc");
  EXPECT_EQ(top.at("n").text_or_empty(), "");
  EXPECT_TRUE(top.at("b").boolean());
  EXPECT_EQ(error_of([&] { top.at("o").text(); }), "field 'o' must be a string, found an object");
  EXPECT_EQ(error_of([&] { top.at("a").members(); }), "field 'a' must be an object, found an array");
  EXPECT_EQ(error_of([&] { top.at("s").elements(); }), "field 's' must be an array, found \"abc\"");
  EXPECT_EQ(error_of([&] { top.at("s").at("x"); }), "field 's' must be an object, found \"abc\"");
  EXPECT_FALSE(top.find("missing").has_value());
}

TEST(JsonFields, LongAndControlValuesAreExcerpted) {
  json j;
  j["s"] = std::string(100000, 'x') + "\n";
  const JsonField top(j, "");
  const auto msg = error_of([&] { top.at("s").boolean(); });
  EXPECT_LT(msg.size(), 200u);
  EXPECT_NE(msg.find("..."), std::string::npos);
}

TEST(ParseJsonText, WhatIsWrongInWordsNeverNlohmannsText) {
  std::string problem;
  EXPECT_TRUE(parse_json_text(R"({"a": [1, 2.5, "x"]})", problem).has_value());
  EXPECT_FALSE(parse_json_text(R"({"a": 1e400})", problem).has_value());
  EXPECT_NE(problem.find("the number 1e400 is beyond the range of a double"), std::string::npos) << problem;
  EXPECT_FALSE(parse_json_text(R"({"a": )", problem).has_value());
  EXPECT_EQ(problem.rfind("not valid JSON at byte ", 0), 0U) << problem;
  EXPECT_EQ(problem.find("json.exception"), std::string::npos) << problem;
  EXPECT_FALSE(parse_json_text(std::string("{}\0", 3), problem).has_value());  // a NUL after the value
  EXPECT_EQ(problem, "not valid JSON at byte 3: a NUL byte");
}

TEST(ParseJsonText, DeepNestingIsRefusedAsItIsRead) {
  std::string problem;
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_TRUE(parse_json_text(nested(kMaxJsonDepth), problem).has_value());
  EXPECT_FALSE(parse_json_text(nested(kMaxJsonDepth + 1), problem).has_value());
  EXPECT_EQ(problem, "nested more than 64 levels deep");
  EXPECT_FALSE(parse_json_text(std::string(1000000, '['), problem).has_value());  // stops at level 65
}

}  // namespace
}  // namespace distbench
