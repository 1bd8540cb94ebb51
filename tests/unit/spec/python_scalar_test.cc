#include "merlin/core/spec/python_scalar.h"

#include <gtest/gtest.h>

namespace merlin::spec {
namespace {

// Expected texts are what `str(yaml.load(text, yaml.FullLoader))` prints with PyYAML 6.
TEST(PythonScalarTest, FloatsPrintAsPythonDoes) {
  EXPECT_EQ(python_str_of_plain(".75"), "0.75");
  EXPECT_EQ(python_str_of_plain("0.5"), "0.5");
  EXPECT_EQ(python_str_of_plain("1.10"), "1.1");
  EXPECT_EQ(python_str_of_plain("1."), "1.0");
  EXPECT_EQ(python_str_of_plain("1.0e+3"), "1000.0");
  EXPECT_EQ(python_str_of_plain("0.00001"), "1e-05");
  EXPECT_EQ(python_str_of_plain("0.0001"), "0.0001");
  EXPECT_EQ(python_str_of_plain("1.0e+16"), "1e+16");
  EXPECT_EQ(python_str_of_plain("123456789012345678.0"), "1.2345678901234568e+17");
  EXPECT_EQ(python_str_of_plain("1_000.5"), "1000.5");
  EXPECT_EQ(python_str_of_plain("-0.0"), "-0.0");
  EXPECT_EQ(python_str_of_plain("1.0e+400"), "inf");
  EXPECT_EQ(python_str_of_plain("1.0e-400"), "0.0");
  EXPECT_EQ(python_str_of_plain(".inf"), "inf");
  EXPECT_EQ(python_str_of_plain("-.Inf"), "-inf");
  EXPECT_EQ(python_str_of_plain(".NaN"), "nan");
  EXPECT_EQ(python_str_of_plain("1:30.5"), "90.5");
}

TEST(PythonScalarTest, IntsInEveryYaml11Base) {
  EXPECT_EQ(python_str_of_plain("42"), "42");
  EXPECT_EQ(python_str_of_plain("+42"), "42");
  EXPECT_EQ(python_str_of_plain("-0"), "0");
  EXPECT_EQ(python_str_of_plain("1_000"), "1000");
  EXPECT_EQ(python_str_of_plain("1_"), "1");
  EXPECT_EQ(python_str_of_plain("010"), "8");
  EXPECT_EQ(python_str_of_plain("0x1F"), "31");
  EXPECT_EQ(python_str_of_plain("-0b101"), "-5");
  EXPECT_EQ(python_str_of_plain("190:20:30"), "685230");
  EXPECT_EQ(python_str_of_plain("99999999999999999999"), "99999999999999999999");
  EXPECT_EQ(python_str_of_plain("0xFFFFFFFFFFFFFFFFFFFF"), "1208925819614629174706175");
}

TEST(PythonScalarTest, BoolsAreTrueAndFalse) {
  for (const char* t : {"yes", "Yes", "true", "TRUE", "on", "ON"})
    EXPECT_EQ(python_str_of_plain(t), "True") << t;
  for (const char* f : {"no", "NO", "false", "False", "off", "Off"})
    EXPECT_EQ(python_str_of_plain(f), "False") << f;
}

TEST(PythonScalarTest, FormsYaml11LeavesAsStringsKeepTheirText) {
  // A YAML 1.1 float needs a dot, a bare-dot float takes no sign, and 8 is no octal digit.
  for (const char* s : {"1e3", "-.5", "+.5", "08", "0o7", "1.2.3", "abc", "2001-12-14", "y",
                        "n", "0b", "._", "nan", "inf"})
    EXPECT_EQ(python_str_of_plain(s), s) << s;
}

TEST(PythonScalarTest, QuotedScalarsStayAsWritten) {
  YamlNode quoted;
  quoted.kind = YamlNode::Kind::kScalar;
  quoted.scalar = "0.50";
  EXPECT_EQ(python_str(quoted), "0.50");
  quoted.plain = true;
  EXPECT_EQ(python_str(quoted), "0.5");
}

}  // namespace
}  // namespace merlin::spec
