#include "merlin/core/util/value_format.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace merlin::samples {
namespace {

// Expected strings are what Python 3 / numpy >= 1.14 print for str(np.float64(x)).
TEST(SampleValueFormat, Float64WholeNumbersKeepPointZero) {
  EXPECT_EQ(format_float64(1.0), "1.0");
  EXPECT_EQ(format_float64(-3.0), "-3.0");
  EXPECT_EQ(format_float64(0.0), "0.0");
  EXPECT_EQ(format_float64(-0.0), "-0.0");
  EXPECT_EQ(format_float64(100.0), "100.0");
  EXPECT_EQ(format_float64(1e15), "1000000000000000.0");
  EXPECT_EQ(format_float64(9999999999999998.0), "9999999999999998.0");
}

TEST(SampleValueFormat, Float64UsesShortestRoundTripDigits) {
  EXPECT_EQ(format_float64(0.1), "0.1");
  EXPECT_EQ(format_float64(0.4775), "0.4775");
  EXPECT_EQ(format_float64(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(format_float64(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(format_float64(123.456), "123.456");
  EXPECT_EQ(format_float64(-2.5), "-2.5");
}

TEST(SampleValueFormat, Float64SwitchesToScientificBelow1eMinus4AndFrom1e16) {
  EXPECT_EQ(format_float64(0.0001), "0.0001");
  EXPECT_EQ(format_float64(0.00012), "0.00012");
  EXPECT_EQ(format_float64(1e-05), "1e-05");
  EXPECT_EQ(format_float64(1.5e-07), "1.5e-07");
  EXPECT_EQ(format_float64(-2.5e-10), "-2.5e-10");
  EXPECT_EQ(format_float64(1e16), "1e+16");
  EXPECT_EQ(format_float64(1.5e16), "1.5e+16");
  EXPECT_EQ(format_float64(1e100), "1e+100");
  EXPECT_EQ(format_float64(1e-300), "1e-300");
  EXPECT_EQ(format_float64(5e-324), "5e-324");
  EXPECT_EQ(format_float64(1.7976931348623157e308), "1.7976931348623157e+308");
}

TEST(SampleValueFormat, Float64NonFiniteValuesPrintLikePython) {
  EXPECT_EQ(format_float64(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_float64(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_float64(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(SampleValueFormat, Float32RoundTripsAsFloatNotDouble) {
  EXPECT_EQ(format_float32(0.1f), "0.1");  // not 0.10000000149011612
  EXPECT_EQ(format_float32(0.4775f), "0.4775");
  EXPECT_EQ(format_float32(1.0f), "1.0");
  EXPECT_EQ(format_float32(3.14159274f), "3.1415927");
  EXPECT_EQ(format_float32(1e-05f), "1e-05");
  EXPECT_EQ(format_float32(1e16f), "1e+16");
  EXPECT_EQ(format_float32(1e15f), "1000000000000000.0");
  EXPECT_EQ(format_float32(16777216.0f), "16777216.0");
}

TEST(SampleValueFormat, Float32CutoffComparesTheValueLikeNumpy) {
  // 1e-4f is 9.99999974738e-05 < 1e-4, so numpy prints it in scientific notation.
  EXPECT_EQ(format_float32(1e-4f), "1e-04");
  EXPECT_EQ(format_float32(0.00011f), "0.00011");
}

TEST(SampleValueFormat, IntegersAndBoolsPrintAsPython) {
  EXPECT_EQ(format_int(-9223372036854775807LL - 1), "-9223372036854775808");
  EXPECT_EQ(format_int(0), "0");
  EXPECT_EQ(format_uint(18446744073709551615ULL), "18446744073709551615");
  EXPECT_EQ(format_bool(true), "True");
  EXPECT_EQ(format_bool(false), "False");
}

}  // namespace
}  // namespace merlin::samples
