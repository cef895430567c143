// Plot axes: ranges, the mapping onto the axis and the labelled ticks.
#include "views/plot_axis.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <utility>

namespace distbench::views {
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
  EXPECT_EQ(labels(make_axis(0.01, 20, true, TickStyle::number)), (std::vector<std::string>{"0.01", "0.1", "1", "10"}));
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

// Any range of drawable values gives an axis at once: finite ends around the data, a few distinct increasing ticks
// inside it, short labels, a mapping onto [0, 1]. Values one ULP apart once looped forever (a step of one ULP
// added to a count that stopped advancing), denormals rounded to a step of 0, and huge ranges overflowed.
TEST(PlotAxis, AnyFiniteRangeGivesAFewTicks) {
  const double ulp_above_1 = std::nextafter(1.0, 2.0);
  const std::vector<std::pair<double, double>> ranges = {
      {1, ulp_above_1},
      {1e300, std::nextafter(1e300, DBL_MAX)},
      {123456.789, std::nextafter(123456.789, 1e6)},
      {-ulp_above_1, -1},
      {DBL_TRUE_MIN, 2 * DBL_TRUE_MIN},
      {0, DBL_TRUE_MIN},
      {-DBL_TRUE_MIN, DBL_TRUE_MIN},
      {1e-323, 1e-323},
      {DBL_MIN, DBL_MIN},
      {DBL_MIN, DBL_MAX},
      {DBL_TRUE_MIN, 100},
      {-DBL_MAX, DBL_MAX},
      {DBL_MAX, DBL_MAX},
      {-DBL_MAX, -DBL_MAX},
      {0, 0},
      {7, 7},
      {-3, 5},
  };
  for (const auto& [min, max] : ranges) {
    for (const bool log : {false, true}) {
      if (log && min <= 0) continue;
      for (const TickStyle style : {TickStyle::number, TickStyle::bytes}) {
        SCOPED_TRACE(testing::Message() << "min " << min << " max " << max << (log ? " log " : " linear ")
                                        << (style == TickStyle::bytes ? "bytes" : "number"));
        const PlotAxis a = make_axis(min, max, log, style);
        EXPECT_TRUE(std::isfinite(a.lo) && std::isfinite(a.hi)) << a.lo << " " << a.hi;
        EXPECT_LT(a.lo, a.hi);
        if (log) {
          EXPECT_GT(a.lo, 0);
        }
        EXPECT_GE(a.ticks.size(), 2u);
        EXPECT_LE(a.ticks.size(), 16u);
        for (std::size_t i = 0; i < a.ticks.size(); ++i) {
          EXPECT_TRUE(std::isfinite(a.ticks[i].value));
          if (i > 0) {
            EXPECT_LT(a.ticks[i - 1].value, a.ticks[i].value);
          }
          EXPECT_LE(a.ticks[i].label.size(), 20u) << a.ticks[i].label;  // "-8.88178e+284 PiB" at most
          const double f = a.fraction(a.ticks[i].value);
          EXPECT_TRUE(f >= 0 && f <= 1) << f;
        }
        for (const double v : {min, max}) {
          const double f = a.fraction(v);
          EXPECT_TRUE(f >= 0 && f <= 1) << v << " at " << f;
        }
      }
    }
  }
}

// Values one ULP apart are drawn as one value, with the same range as equal values.
TEST(PlotAxis, AdjacentDoublesAreOneValue) {
  const PlotAxis a = make_axis(1, std::nextafter(1.0, 2.0), false, TickStyle::number);
  const PlotAxis b = make_axis(1, 1, false, TickStyle::number);
  EXPECT_DOUBLE_EQ(a.lo, b.lo);
  EXPECT_DOUBLE_EQ(a.hi, b.hi);
  EXPECT_EQ(labels(a), labels(b));
  EXPECT_NEAR(a.fraction(1), 0.5, 0.1);
}

// A value the axis cannot reach is drawn at its edge, never at a coordinate hundreds of digits long; what is not
// drawable at all (NaN, 0 on a log axis) maps to 0.
TEST(PlotAxis, FractionStaysWithinTheAxis) {
  const PlotAxis lin = make_axis(0, 4, false, TickStyle::number);
  EXPECT_EQ(lin.fraction(1e300), 1);
  EXPECT_EQ(lin.fraction(-1e300), 0);
  EXPECT_EQ(lin.fraction(std::nan("")), 0);
  const PlotAxis log = make_axis(1, 100, true, TickStyle::number);
  EXPECT_EQ(log.fraction(0), 0);
  EXPECT_EQ(log.fraction(-5), 0);
  EXPECT_EQ(log.fraction(INFINITY), 1);
}

// Ends that are not drawable values (the contract asks for drawable ones) still give an axis.
TEST(PlotAxis, NonFiniteOrReversedEndsGiveAnAxis) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double nan = std::nan("");
  for (const auto& [min, max] : std::vector<std::pair<double, double>>{
           {nan, nan}, {nan, 3}, {3, nan}, {-kInf, kInf}, {kInf, kInf}, {5, 1}, {0, -1}}) {
    for (const bool log : {false, true}) {
      SCOPED_TRACE(testing::Message() << min << " " << max << (log ? " log" : " linear"));
      const PlotAxis a = make_axis(min, max, log, TickStyle::number);
      EXPECT_TRUE(std::isfinite(a.lo) && std::isfinite(a.hi));
      EXPECT_LT(a.lo, a.hi);
      EXPECT_GE(a.ticks.size(), 2u);
    }
  }
}

}  // namespace
}  // namespace distbench::views
