// parse_report on malformed reports: each is one usage_error naming the field, never an exception out of
// nlohmann, a wrapped unsigned or a float converted to an int.
#include "core/report/json_model.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace distbench {
namespace {

using json = ordered_json;

std::string source_file(const std::string& relative) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  const std::string path = std::string(root != nullptr ? root : "..") + "/" + relative;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

json example_v2() { return json::parse(source_file("reports/example.json")); }
json example_v1() { return json::parse(source_file("tests/data/report_v1.json")); }

std::string reader_error(const std::string& text) {
  try {
    parse_report(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << text.substr(0, 200);
  return {};
}

TEST(JsonReader, TheExamplesRead) {
  EXPECT_EQ(parse_report(example_v2().dump()).schema_version, 2);
  EXPECT_EQ(parse_report(example_v1().dump()).schema_version, 1);
}

TEST(JsonReader, ANumberBeyondADoubleIsOneErrorWithItsOffset) {
  EXPECT_EQ(reader_error(R"({"schema_version": 1e400})"),
            "malformed distbench report: not valid JSON at byte 24: the number 1e400 is beyond the range of a double; "
            "pass a JSON report written by distbench --json");
}

TEST(JsonReader, ASyntaxErrorNamesItsOffset) {
  const auto msg = reader_error(R"({"schema_version": 2,)");
  EXPECT_EQ(msg.rfind("malformed distbench report: not valid JSON at byte 22 (line 1, column 22): syntax error", 0), 0u) << msg;
  EXPECT_EQ(msg.find("[json.exception"), std::string::npos) << msg;
}

TEST(JsonReader, SchemaVersionIsNotTruncated) {
  EXPECT_EQ(reader_error(R"({"schema_version": 4294967297})"),
            "unsupported report schema_version 4294967297: this distbench reads versions 1 to 3; read it with the "
            "distbench version that wrote it, or a newer one");
  EXPECT_EQ(reader_error(R"({"schema_version": 1.0})"), "field 'schema_version' must be an integer from "
                                                      "-9223372036854775808 to 9223372036854775807, found 1.0");
}

TEST(JsonReader, NegativeSamplesAreRefused) {
  json j = example_v2();
  j["records"][3]["phases"][0]["time_us"]["samples"] = -1;
  EXPECT_EQ(reader_error(j.dump()),
            "field 'records[3].phases[0].time_us.samples' must be a non-negative integer, found -1");
}

TEST(JsonReader, AFloatInAnIntegerFieldIsRefused) {
  json j = example_v2();
  j["records"][0]["ops_per_sample"] = 1e300;
  EXPECT_EQ(reader_error(j.dump()),
            "field 'records[0].ops_per_sample' must be an integer from 1 to 2147483647, found 1e+300");
  j = example_v2();
  j["records"][0]["ranks"][0]["rank"] = 1e300;
  EXPECT_EQ(reader_error(j.dump()), "field 'records[0].ranks[0].rank' must be an integer from 0 to 2147483647, "
                                   "found 1e+300");
  j = example_v2();
  j["environment"]["world_size"] = 4294967298.0;
  EXPECT_NE(reader_error(j.dump()).find("field 'environment.world_size' must be"), std::string::npos);
}

TEST(JsonReader, Version1FieldsAreCheckedToo) {
  json j = example_v1();
  j["results"][0]["ops_per_sample"] = -5;
  EXPECT_EQ(reader_error(j.dump()), "field 'results[0].ops_per_sample' must be an integer from 1 to 2147483647, found -5");
  j = example_v1();
  j["results"][0]["time_us"]["outliers"] = 1.5;
  EXPECT_EQ(reader_error(j.dump()), "field 'results[0].time_us.outliers' must be a non-negative integer, found 1.5");
}

TEST(JsonReader, MistypedAndMissingFieldsAreNamed) {
  json j = example_v2();
  j["records"][2]["status"] = 7;
  EXPECT_EQ(reader_error(j.dump()), "field 'records[2].status' must be a string, found 7");
  j = example_v2();
  j["records"][1]["phases"][0].erase("samples_us");
  EXPECT_EQ(reader_error(j.dump()), "field 'records[1].phases[0].samples_us' is missing");
  j = example_v2();
  j["records"][1]["metrics"]["busbw_gbps"] = "fast";
  EXPECT_EQ(reader_error(j.dump()),
            "field 'records[1].metrics.busbw_gbps' must be a finite number or null, found \"fast\"");
  j = example_v2();
  j["signal"] = 1e300;
  EXPECT_EQ(reader_error(j.dump()), "field 'signal' must be an integer from 0 to 2147483647, found 1e+300");
}

}  // namespace
}  // namespace distbench
