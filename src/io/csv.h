#pragma once
// A small CSV reader and strict field parsers, shared by the trace and node-list readers.
//
// Contract of read_csv_file / parse_csv_text:
//   - one record per physical line (quoted fields may not span lines);
//   - a UTF-8 BOM at the start is dropped; CRLF and a missing final newline are accepted;
//   - blank (or whitespace-only) lines are skipped but still counted, so CsvRow::line is the
//     1-based line number in the file (the header is line 1);
//   - fields are split on ',', a field wrapped in double quotes may contain commas and ""
//     (an escaped quote); an unterminated quote is reported as an error;
//   - fields are not trimmed except for the surrounding spaces of a quoted field.
// The field parsers never throw; their errors read
//   "FILE:LINE: field 'NAME': expected a number, got 'abc'".

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace frugal {

struct CsvRow {
  size_t line = 0;  // 1-based line number in the file
  std::vector<std::string> fields;
};

// Whole-file text, with the BOM removed. Error names the file when it cannot be read.
Result<std::string> read_text_file(const std::string& path);

// Splits `text` into rows; `origin` names the source in error messages.
Result<std::vector<CsvRow>> parse_csv_text(std::string_view text, const std::string& origin);

// read_text_file + parse_csv_text.
Result<std::vector<CsvRow>> read_csv_file(const std::string& path);

// `text` as quoted in an error message: its first 40 characters, then "..." when longer.
std::string excerpt(std::string_view text);

// Splits one line into fields (no trailing '\r'); false on an unterminated quote.
bool split_csv_line(std::string_view line, std::vector<std::string>& out);

// Where a value comes from, for messages: "FILE:LINE".
struct Where {
  const std::string* file = nullptr;
  size_t line = 0;
  std::string str() const;
};

// "FILE:LINE: field 'NAME': MESSAGE".
Error field_error(const Where& where, std::string_view field, std::string_view message);

// Limits applied by the parsers below.
inline constexpr double kMaxSeconds = 1e11;      // about 3,000 years
inline constexpr int64_t kMaxCount = 1'000'000;  // GPUs, replicas, ...

// A finite number in [0, kMaxSeconds].
Result<double> parse_seconds(std::string_view text, std::string_view field, const Where& where);
// A finite number in [lo, hi].
Result<double> parse_real(std::string_view text, std::string_view field, const Where& where,
                          double lo, double hi);
// A whole number in [lo, hi] (written as an integer, or as a number with a zero fraction).
Result<int64_t> parse_int(std::string_view text, std::string_view field, const Where& where,
                          int64_t lo, int64_t hi);
// A whole count in [0, kMaxCount].
Result<int64_t> parse_count(std::string_view text, std::string_view field, const Where& where);
// true/false/1/0 (also yes/no), case-insensitive.
Result<bool> parse_bool(std::string_view text, std::string_view field, const Where& where);

}  // namespace frugal
