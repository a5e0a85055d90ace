// The CSV splitter and the strict field parsers.

#include "io/csv.h"

#include <gtest/gtest.h>

#include <cmath>

namespace frugal {
namespace {

const std::string kFile = "f.csv";

TEST(Csv, SplitsQuotedFieldsWithCommasAndEscapedQuotes) {
  std::vector<std::string> f;
  ASSERT_TRUE(split_csv_line(R"(a,"b,c","say ""hi""",,d)", f));
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0], "a");
  EXPECT_EQ(f[1], "b,c");
  EXPECT_EQ(f[2], "say \"hi\"");
  EXPECT_EQ(f[3], "");
  EXPECT_EQ(f[4], "d");
  EXPECT_FALSE(split_csv_line(R"(a,"unterminated)", f));
}

TEST(Csv, ToleratesCrlfBlankLinesAndMissingFinalNewline) {
  auto rows = parse_csv_text("a,b\r\n\r\n1,2\r\n   \n3,4", kFile);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows.value().size(), 3u);
  EXPECT_EQ(rows.value()[0].line, 1u);
  EXPECT_EQ(rows.value()[1].line, 3u);
  EXPECT_EQ(rows.value()[1].fields[1], "2");
  EXPECT_EQ(rows.value()[2].line, 5u);
  EXPECT_EQ(rows.value()[2].fields[1], "4");
}

TEST(Csv, UnterminatedQuoteNamesTheLine) {
  auto rows = parse_csv_text("a,b\n1,\"2\n", kFile);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.error().message.find("f.csv:2:"), std::string::npos) << rows.error().message;
}

TEST(Csv, MissingFileIsAnErrorNamingIt) {
  auto rows = read_csv_file("/nonexistent/dir/x.csv");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.error().message.find("/nonexistent/dir/x.csv"), std::string::npos);
}

TEST(CsvFields, ParseSecondsAcceptsNumbersAndRejectsGarbage) {
  const Where w{&kFile, 7};
  EXPECT_DOUBLE_EQ(parse_seconds("12.5", "duration", w).value(), 12.5);
  EXPECT_DOUBLE_EQ(parse_seconds(" 3 ", "duration", w).value(), 3);
  auto bad = parse_seconds("abc", "duration", w);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "f.csv:7: field 'duration': expected a number, got 'abc'");
  EXPECT_FALSE(parse_seconds("", "duration", w).ok());
  EXPECT_FALSE(parse_seconds("-1", "duration", w).ok());
  EXPECT_FALSE(parse_seconds("nan", "duration", w).ok());
  EXPECT_FALSE(parse_seconds("inf", "duration", w).ok());
  EXPECT_FALSE(parse_seconds("1e300", "duration", w).ok());
  EXPECT_FALSE(parse_seconds("2e11", "duration", w).ok());
  EXPECT_FALSE(parse_seconds("12s", "duration", w).ok());
}

TEST(CsvFields, ParseIntIsStrict) {
  const Where w{&kFile, 2};
  EXPECT_EQ(parse_count("16", "num_gpu", w).value(), 16);
  EXPECT_EQ(parse_count("4.0", "num_gpu", w).value(), 4);
  EXPECT_FALSE(parse_count("1.5", "num_gpu", w).ok());
  EXPECT_FALSE(parse_count("-2", "num_gpu", w).ok());
  EXPECT_FALSE(parse_count("2000000", "num_gpu", w).ok());
  EXPECT_FALSE(parse_count("1e9", "num_gpu", w).ok());
  EXPECT_FALSE(parse_count("x", "num_gpu", w).ok());
  auto bad = parse_int("7", "gpu_milli", w, 1, 5);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("field 'gpu_milli'"), std::string::npos);
}

TEST(CsvFields, ParseBool) {
  const Where w{&kFile, 2};
  EXPECT_TRUE(parse_bool("TRUE", "deferrable", w).value());
  EXPECT_FALSE(parse_bool("0", "deferrable", w).value());
  EXPECT_FALSE(parse_bool("maybe", "deferrable", w).ok());
}

}  // namespace
}  // namespace frugal
