#include "io/csv.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace frugal {
namespace {

std::string_view strip_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Parses a finite double; writes an error to `err` on failure.
bool to_double(std::string_view text, std::string_view field, const Where& where, double& out,
               Error& err) {
  const std::string_view s = strip_spaces(text);
  if (s.empty()) {
    err = field_error(where, field, "expected a number, got an empty field");
    return false;
  }
  const char* first = s.data();
  if (*first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), out);
  if (ec == std::errc::result_out_of_range) {
    err = field_error(where, field, fmt::format("number out of range: '{}'", excerpt(text)));
    return false;
  }
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    err = field_error(where, field, fmt::format("expected a number, got '{}'", excerpt(text)));
    return false;
  }
  if (!std::isfinite(out)) {
    err =
        field_error(where, field, fmt::format("expected a finite number, got '{}'", excerpt(text)));
    return false;
  }
  return true;
}

}  // namespace

std::string Where::str() const {
  return fmt::format("{}:{}", file ? *file : "<input>", line);
}

Error field_error(const Where& where, std::string_view field, std::string_view message) {
  return Error{fmt::format("{}: field '{}': {}", where.str(), field, message)};
}

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot open file (does it exist?)", path)};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{fmt::format("{}: read error", path)};
  std::string text = std::move(ss).str();
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  return text;
}

std::string excerpt(std::string_view text) {
  if (text.size() > 40) return fmt::format("{}...", text.substr(0, 40));
  return std::string(text);
}

bool split_csv_line(std::string_view line, std::vector<std::string>& out) {
  out.clear();
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    // Skip spaces before a possible opening quote.
    size_t j = i;
    while (j < n && line[j] == ' ') ++j;
    if (j < n && line[j] == '"') {
      std::string field;
      size_t k = j + 1;
      bool closed = false;
      while (k < n) {
        if (line[k] == '"') {
          if (k + 1 < n && line[k + 1] == '"') {
            field.push_back('"');
            k += 2;
            continue;
          }
          closed = true;
          ++k;
          break;
        }
        field.push_back(line[k++]);
      }
      if (!closed) return false;
      while (k < n && line[k] == ' ') ++k;
      if (k < n && line[k] != ',') return false;  // text after the closing quote
      out.push_back(std::move(field));
      if (k >= n) return true;
      i = k + 1;
      continue;
    }
    const size_t comma = line.find(',', i);
    if (comma == std::string_view::npos) {
      out.emplace_back(line.substr(i));
      return true;
    }
    out.emplace_back(line.substr(i, comma - i));
    i = comma + 1;
  }
}

Result<std::vector<CsvRow>> parse_csv_text(std::string_view text, const std::string& origin) {
  std::vector<CsvRow> rows;
  size_t pos = 0;
  size_t line_no = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (strip_spaces(line).empty()) continue;
    CsvRow row;
    row.line = line_no;
    if (!split_csv_line(line, row.fields))
      return Error{fmt::format("{}:{}: unterminated or misplaced double quote", origin, line_no)};
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::vector<CsvRow>> read_csv_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text.ok()) return text.error();
  return parse_csv_text(text.value(), path);
}

Result<double> parse_seconds(std::string_view text, std::string_view field, const Where& where) {
  double v = 0;
  Error err;
  if (!to_double(text, field, where, v, err)) return err;
  if (v < 0) return field_error(where, field, fmt::format("must be >= 0, got '{}'", excerpt(text)));
  if (v > kMaxSeconds)
    return field_error(
        where, field,
        fmt::format("{} s is beyond the limit of {:g} s", excerpt(text), kMaxSeconds));
  return v;
}

Result<double> parse_real(std::string_view text, std::string_view field, const Where& where,
                          double lo, double hi) {
  double v = 0;
  Error err;
  if (!to_double(text, field, where, v, err)) return err;
  if (v < lo || v > hi)
    return field_error(
        where, field,
        fmt::format("must be between {:g} and {:g}, got '{}'", lo, hi, excerpt(text)));
  return v;
}

Result<int64_t> parse_int(std::string_view text, std::string_view field, const Where& where,
                          int64_t lo, int64_t hi) {
  const std::string_view s = strip_spaces(text);
  int64_t v = 0;
  const char* first = s.data();
  if (!s.empty() && *first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    // Accept "4.0" and "1e3"; reject fractions.
    double d = 0;
    Error err;
    if (!to_double(text, field, where, d, err)) return err;
    if (d != std::floor(d))
      return field_error(where, field,
                         fmt::format("expected a whole number, got '{}'", excerpt(text)));
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi))
      return field_error(where, field,
                         fmt::format("must be in [{}, {}], got '{}'", lo, hi, excerpt(text)));
    v = static_cast<int64_t>(d);
  }
  if (v < lo || v > hi)
    return field_error(where, field,
                       fmt::format("must be in [{}, {}], got '{}'", lo, hi, excerpt(text)));
  return v;
}

Result<int64_t> parse_count(std::string_view text, std::string_view field, const Where& where) {
  return parse_int(text, field, where, 0, kMaxCount);
}

Result<bool> parse_bool(std::string_view text, std::string_view field, const Where& where) {
  std::string s(strip_spaces(text));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "true" || s == "1" || s == "yes") return true;
  if (s == "false" || s == "0" || s == "no") return false;
  return field_error(where, field, fmt::format("expected true/false/1/0, got '{}'", excerpt(text)));
}

}  // namespace frugal
