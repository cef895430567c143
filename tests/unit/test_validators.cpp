// Option checks in words: what each accepts, the message for what it refuses, the rule --help shows.
#include "cli/validators.hpp"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

// The validator's message for `text` ("" when accepted); `text` is rewritten as a transform would.
std::string message(const CLI::Validator& v, std::string& text) { return v(text); }
std::string message(const CLI::Validator& v, const std::string& text) {
  std::string copy = text;
  return v(copy);
}

TEST(Validators, PositiveNumber) {
  const auto v = positive_number("seconds");
  EXPECT_EQ(message(v, "1.5"), "");
  EXPECT_EQ(message(v, "1e-3"), "");
  EXPECT_EQ(message(v, "-1"), "-1 is not a positive number of seconds");
  EXPECT_EQ(message(v, "0"), "0 is not a positive number of seconds");
  EXPECT_EQ(message(v, "abc"), "'abc' is not a number of seconds");
  EXPECT_EQ(message(v, "inf"), "'inf' is not a number of seconds");
  EXPECT_EQ(message(v, "1e999"), "'1e999' is not a number of seconds");
  EXPECT_EQ(v.get_description(), "SECONDS > 0");
}

TEST(Validators, BoundedNumbers) {
  // compare --run-timeout: 1e10 s would overflow a clock; refused in words, with the rule in --help.
  const auto v = positive_number("seconds", 1e6);
  EXPECT_EQ(message(v, "600"), "");
  EXPECT_EQ(message(v, "1e6"), "");
  EXPECT_EQ(message(v, "1e10"), "1e10 is more than 1e+06 seconds; give at most 1e+06");
  EXPECT_EQ(message(v, "0"), "0 is not a positive number of seconds");
  EXPECT_EQ(v.get_description(), "0 < SECONDS <= 1e+06");
  const auto floor = non_negative_number("microseconds", 1e9);
  EXPECT_EQ(message(floor, "0"), "");
  EXPECT_EQ(message(floor, "1e300"), "1e300 is more than 1e+09 microseconds; give at most 1e+09");
  EXPECT_EQ(floor.get_description(), "0 <= MICROSECONDS <= 1e+09");
}

TEST(Validators, NonNegativeNumber) {
  const auto v = non_negative_number("GB/s");
  EXPECT_EQ(message(v, "0"), "");
  EXPECT_EQ(message(v, "12.5"), "");
  EXPECT_EQ(message(v, "-0.5"), "-0.5 is not 0 or more GB/s");
  EXPECT_EQ(v.get_description(), "GB/S >= 0");
}

// An app whose subcommand holds a count and a number, with check_number_types added as main() adds it.
struct Typed {
  CLI::App app{"typed"};
  std::size_t count = 0;
  double number = 0;
  float single = 0;
  Typed() {
    auto* sub = app.add_subcommand("run");
    sub->add_option("--count", count);
    sub->add_option("--number", number);
    sub->add_option("--single", single);
    check_number_types(app);
  }
  // The parse error's text ("" when it parses).
  std::string parse(const std::string& option, const std::string& value) {
    try {
      app.parse(std::vector<std::string>{value, option, "run"});  // CLI11 takes the arguments in reverse
      return "";
    } catch (const CLI::ParseError& e) {
      return e.what();
    }
  }
};

TEST(Validators, UnsignedOptionsRefuseWhatWouldWrap) {
  EXPECT_EQ(Typed().parse("--count", "12"), "");
  EXPECT_EQ(Typed().parse("--count", "+12"), "");
  Typed t;
  EXPECT_EQ(t.parse("--count", "18446744073709551615"), "");
  EXPECT_EQ(t.count, UINT64_MAX);
  EXPECT_NE(Typed().parse("--count", "-1").find("'-1' is not a whole number of 0 or more"), std::string::npos);
  Typed decimal;
  EXPECT_EQ(decimal.parse("--count", "010"), "");
  EXPECT_EQ(decimal.count, 10U);  // decimal, as written: not CLI11's octal 8
  EXPECT_NE(Typed().parse("--count", "0x10").find("'0x10' is not a whole number"), std::string::npos);
  EXPECT_NE(Typed().parse("--count", "18446744073709551616").find("is too large"), std::string::npos);
}

TEST(Validators, FloatingOptionsRefuseInfinityAndNan) {
  Typed t;
  EXPECT_EQ(t.parse("--number", "1.5e3"), "");
  EXPECT_EQ(t.number, 1500);
  EXPECT_NE(Typed().parse("--number", "inf").find("inf is not a finite number"), std::string::npos);
  EXPECT_NE(Typed().parse("--number", "-inf").find("is not a finite number"), std::string::npos);
  EXPECT_NE(Typed().parse("--number", "nan").find("nan is not a finite number"), std::string::npos);
  EXPECT_NE(Typed().parse("--single", "1e400").find("is not a finite number"), std::string::npos);
}

TEST(Validators, TheTypeChecksLeaveTheHelpAlone) {
  Typed t;
  EXPECT_EQ(t.app.get_subcommand("run")->get_option("--count")->get_type_name(), "UINT");
  EXPECT_EQ(t.app.get_subcommand("run")->get_option("--number")->get_type_name(), "FLOAT");
}

TEST(Validators, NonEmptyPath) {
  EXPECT_EQ(message(non_empty_path(), "r.json"), "");
  EXPECT_EQ(message(non_empty_path(), "-"), "");
  EXPECT_EQ(message(non_empty_path(), ""), "the path is empty; give a file name (or leave the option out)");
}

TEST(Validators, InRange) {
  const auto v = in_range(1, 64);
  EXPECT_EQ(message(v, "1"), "");
  EXPECT_EQ(message(v, "64"), "");
  EXPECT_EQ(message(v, "+8"), "");
  EXPECT_EQ(message(v, "0"), "0 is not a whole number from 1 to 64");
  EXPECT_EQ(message(v, "65"), "65 is not a whole number from 1 to 64");
  EXPECT_EQ(message(v, "2.5"), "'2.5' is not a whole number from 1 to 64");
  EXPECT_EQ(message(v, ""), "'' is not a whole number from 1 to 64");
  EXPECT_EQ(v.get_description(), "1..64");
  EXPECT_EQ(message(in_range(2, 8, "rank count"), "1"), "1 is not a rank count from 2 to 8");
}

TEST(Validators, AtLeast) {
  const auto v = at_least(0);
  EXPECT_EQ(message(v, "0"), "");
  EXPECT_EQ(message(v, "-1"), "-1 is less than 0; give a whole number of 0 or more");
  EXPECT_EQ(message(v, "x"), "'x' is not a whole number");
  EXPECT_EQ(v.get_description(), "N >= 0");
}

TEST(Validators, OneOfWithAliases) {
  const auto v = one_of({"rank0", "avg", "min", "max"}, {{"0", "rank0"}, {"3", "max"}});
  std::string text = "3";
  EXPECT_EQ(message(v, text), "");
  EXPECT_EQ(text, "max");  // the alias becomes the name
  text = "avg";
  EXPECT_EQ(message(v, text), "");
  EXPECT_EQ(text, "avg");
  EXPECT_EQ(message(v, "mean"), "'mean' is not rank0, avg, min or max");
  EXPECT_EQ(message(v, "AVG"), "'AVG' is not rank0, avg, min or max; did you mean 'avg'?");
  EXPECT_EQ(message(v, "4"), "'4' is not rank0, avg, min or max");
  EXPECT_EQ(v.get_description(), "{rank0,avg,min,max}");
  EXPECT_EQ(message(one_of({"0", "1"}), "2"), "'2' is not 0 or 1");
}

TEST(Validators, HelpShowsTheRuleAloneWithTheDefault) {
  CLI::App app{"test"};
  app.formatter(std::make_shared<RuleFormatter>());
  app.option_defaults()->always_capture_default();
  double timeout = 300;
  int gpus = 1;
  std::string plain = "x";
  app.add_option("-T,--timeout", timeout, "Seconds")->check(positive_number("seconds"));
  app.add_option("-g,--ngpus", gpus, "GPUs")->check(in_range(1, 64));
  app.add_option("--plain", plain, "Unchecked");
  const std::string help = app.help();
  EXPECT_NE(help.find("-T,--timeout SECONDS > 0 (default 300)"), std::string::npos) << help;
  EXPECT_NE(help.find("-g,--ngpus 1..64 (default 1)"), std::string::npos) << help;
  EXPECT_NE(help.find("--plain TEXT=x"), std::string::npos) << help;
  EXPECT_EQ(help.find("FLOAT"), std::string::npos) << help;
}

}  // namespace
}  // namespace distbench::cli
