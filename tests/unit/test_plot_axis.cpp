// Plot axes: ranges, the mapping onto the axis and the labelled ticks.
#include "views/plot_axis.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace distbench {
namespace {

std::vector<std::string> labels(const PlotAxis& axis) {
  std::vector<std::string> out;
  for (const AxisTick& t : axis.ticks) out.push_back(t.label);
  return out;
}

TEST(PlotAxis, BytesLabelsUseBinaryUnits) {
  EXPECT_EQ(bytes_label(1), "1 B");
  EXPECT_EQ(bytes_label(8), "8 B");
  EXPECT_EQ(bytes_label(1023), "1023 B");
  EXPECT_EQ(bytes_label(1024), "1 KiB");
  EXPECT_EQ(bytes_label(1536), "1.5 KiB");
  EXPECT_EQ(bytes_label(1 << 20), "1 MiB");
  EXPECT_EQ(bytes_label(64.0 * (1 << 20)), "64 MiB");
  EXPECT_EQ(bytes_label(std::ldexp(1.0, 30)), "1 GiB");
}

TEST(PlotAxis, NumberLabelsAreShort) {
  EXPECT_EQ(number_label(0.01), "0.01");
  EXPECT_EQ(number_label(250), "250");
  EXPECT_EQ(number_label(1e6), "1e6");
  EXPECT_EQ(number_label(1e-5), "1e-5");
  EXPECT_EQ(number_label(0), "0");
}

TEST(PlotAxis, ByteAxisTicksAtPowersOfTwo) {
  const PlotAxis a = make_axis(8, 64, true, TickStyle::bytes);
  EXPECT_EQ(labels(a), (std::vector<std::string>{"8 B", "16 B", "32 B", "64 B"}));
  // 8 B .. 1 MiB: 18 powers, every second one (multiples of 2) so that at most nine are labelled
  const PlotAxis wide = make_axis(8, 1 << 20, true, TickStyle::bytes);
  EXPECT_EQ(labels(wide), (std::vector<std::string>{"16 B", "64 B", "256 B", "1 KiB", "4 KiB", "16 KiB", "64 KiB",
                                                    "256 KiB", "1 MiB"}));
  EXPECT_LE(make_axis(1, std::ldexp(1.0, 40), true, TickStyle::bytes).ticks.size(), 9u);
}

TEST(PlotAxis, LogAxisTicksAtDecadesOrBetweenThem) {
  EXPECT_EQ(labels(make_axis(0.01, 20, true, TickStyle::number)),
            (std::vector<std::string>{"0.01", "0.1", "1", "10"}));
  EXPECT_EQ(labels(make_axis(0.6, 30, true, TickStyle::number)),
            (std::vector<std::string>{"0.5", "1", "2", "5", "10", "20", "50"}));
  EXPECT_EQ(labels(make_axis(2.5, 8, true, TickStyle::number)),
            (std::vector<std::string>{"2", "3", "4", "5", "6", "7", "8", "9", "10"}));
}

TEST(PlotAxis, NumberAxesEndAtRoundValuesByteAxesAtTheData) {
  const PlotAxis log = make_axis(0.0146, 5.16, true, TickStyle::number);
  EXPECT_DOUBLE_EQ(log.lo, 0.01);
  EXPECT_DOUBLE_EQ(log.hi, 10);
  const PlotAxis exact = make_axis(1, 1000, true, TickStyle::number);
  EXPECT_DOUBLE_EQ(exact.lo, 1);
  EXPECT_DOUBLE_EQ(exact.hi, 1000);
  const PlotAxis lin = make_axis(0.3, 9.1, false, TickStyle::number);
  EXPECT_DOUBLE_EQ(lin.lo, 0);
  EXPECT_DOUBLE_EQ(lin.hi, 10);
  const PlotAxis bytes = make_axis(8, 262144, true, TickStyle::bytes);
  EXPECT_DOUBLE_EQ(bytes.lo, 8);
  EXPECT_DOUBLE_EQ(bytes.hi, 262144);
}

TEST(PlotAxis, LinearTicksAreRound) {
  EXPECT_EQ(labels(make_axis(0, 10, false, TickStyle::number)),
            (std::vector<std::string>{"0", "2", "4", "6", "8", "10"}));
  EXPECT_EQ(labels(make_axis(-0.3, 0.3, false, TickStyle::number)),
            (std::vector<std::string>{"-0.3", "-0.2", "-0.1", "0", "0.1", "0.2", "0.3"}));
}

TEST(PlotAxis, OneValueGetsARangeAroundIt) {
  const PlotAxis log = make_axis(8, 8, true, TickStyle::bytes);
  EXPECT_LT(log.lo, 8);
  EXPECT_GT(log.hi, 8);
  EXPECT_DOUBLE_EQ(log.fraction(8), 0.5);
  const PlotAxis lin = make_axis(0, 0, false, TickStyle::number);
  EXPECT_LT(lin.lo, 0);
  EXPECT_GT(lin.hi, 0);
}

TEST(PlotAxis, FractionMapsTheRange) {
  const PlotAxis log = make_axis(1, 100, true, TickStyle::number);
  EXPECT_DOUBLE_EQ(log.fraction(1), 0);
  EXPECT_NEAR(log.fraction(10), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(log.fraction(100), 1);
  const PlotAxis lin = make_axis(0, 4, false, TickStyle::number);
  EXPECT_DOUBLE_EQ(lin.fraction(1), 0.25);
}

TEST(PlotAxis, Plottable) {
  EXPECT_TRUE(plottable(1, true));
  EXPECT_FALSE(plottable(0, true));
  EXPECT_FALSE(plottable(-1, true));
  EXPECT_TRUE(plottable(-1, false));
  EXPECT_FALSE(plottable(std::nan(""), false));
  EXPECT_FALSE(plottable(INFINITY, false));
}

}  // namespace
}  // namespace distbench
