#include "io/hourly_csv.h"

#include <date/date.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "io/csv.h"

namespace frugal {
namespace {

constexpr std::string_view kTimeColumn = "Datetime (UTC)";
constexpr std::string_view kPriceColumn = "Price (USD/MWh)";

Error column_error(const std::string& file, size_t line, std::string_view column,
                   std::string_view message) {
  return Error{fmt::format("{}:{}: column '{}': {}", file, line, column, message)};
}

// Reads exactly `n` decimal digits at `s[pos]`.
bool digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// "YYYY-MM-DD HH:MM:SS" (or with 'T'), optionally followed by "+00:00" or "Z", as Unix
// seconds. Other UTC offsets are refused: the column is UTC by name.
std::optional<int64_t> parse_utc_stamp(std::string_view s, std::string& why) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  const bool shape = s.size() >= 19 && digits(s, 0, 4, y) && s[4] == '-' && digits(s, 5, 2, mo) &&
                     s[7] == '-' && digits(s, 8, 2, d) && (s[10] == ' ' || s[10] == 'T') &&
                     digits(s, 11, 2, h) && s[13] == ':' && digits(s, 14, 2, mi) && s[16] == ':' &&
                     digits(s, 17, 2, sec);
  if (!shape) {
    why = fmt::format("expected a time 'YYYY-MM-DD HH:MM:SS[+00:00]', got '{}'", excerpt(s));
    return std::nullopt;
  }
  const std::string_view rest = s.substr(19);
  if (!(rest.empty() || rest == "+00:00" || rest == "Z" || rest == "+0000")) {
    why = fmt::format("expected a UTC time (no offset, '+00:00' or 'Z'), got '{}'", excerpt(s));
    return std::nullopt;
  }
  const date::year_month_day ymd{date::year{y}, date::month{static_cast<unsigned>(mo)},
                                 date::day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 59) {
    why = fmt::format("not a valid date and time: '{}'", excerpt(s));
    return std::nullopt;
  }
  if (mi != 0 || sec != 0) {
    why = fmt::format("not a whole hour: '{}'", excerpt(s));
    return std::nullopt;
  }
  const auto days = date::sys_days{ymd}.time_since_epoch().count();
  return static_cast<int64_t>(days) * 86400 + h * 3600;
}

std::string format_utc(int64_t t) {
  const date::sys_seconds s{std::chrono::seconds{t}};
  return date::format("%Y-%m-%d %H:%M:%SZ", s);
}

// A finite number (negative allowed).
std::optional<double> parse_value(std::string_view text, std::string& why) {
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) {
    why = "expected a number, got an empty field";
    return std::nullopt;
  }
  const char* first = s.data();
  if (*first == '+') ++first;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    why = fmt::format("number out of range: '{}'", excerpt(text));
    return std::nullopt;
  }
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    why = fmt::format("expected a number, got '{}'", excerpt(text));
    return std::nullopt;
  }
  if (!std::isfinite(v)) {
    why = fmt::format("expected a finite number, got '{}'", excerpt(text));
    return std::nullopt;
  }
  return v;
}

// Shared reader of parsed rows from `path` (a file name, or what produced the text):
// `pick` chooses the value column from the header (or returns -1); `wanted` names that
// column in messages.
Result<HourlySeries> hourly_rows(const Result<std::vector<CsvRow>>& rows_r, const std::string& path,
                                 std::string_view wanted,
                                 const std::function<int(std::string_view)>& pick, double lowest,
                                 double highest, std::string_view unit) {
  if (!rows_r.ok()) return rows_r.error();
  const std::vector<CsvRow>& rows = rows_r.value();
  if (rows.empty()) return Error{fmt::format("{}: empty file (no header, no data)", path)};

  const CsvRow& header = rows.front();
  int time_col = -1;
  int value_col = -1;
  for (size_t i = 0; i < header.fields.size(); ++i) {
    const std::string_view name = header.fields[i];
    if (time_col < 0 && name == kTimeColumn) time_col = static_cast<int>(i);
    if (value_col < 0 && pick(name) >= 0) value_col = static_cast<int>(i);
  }
  if (time_col < 0) return column_error(path, header.line, kTimeColumn, "not found in the header");
  if (value_col < 0) return column_error(path, header.line, wanted, "not found in the header");
  const std::string value_name = header.fields[static_cast<size_t>(value_col)];
  const size_t needed = static_cast<size_t>(std::max(time_col, value_col)) + 1;
  if (rows.size() < 2) return Error{fmt::format("{}:{}: no data rows", path, header.line)};

  int64_t start = 0;
  int64_t prev = 0;
  std::vector<double> values;
  values.reserve(rows.size() - 1);
  std::string why;
  for (size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (row.fields.size() < needed)
      return Error{fmt::format("{}:{}: expected at least {} fields, got {}", path, row.line, needed,
                               row.fields.size())};
    const auto t = parse_utc_stamp(row.fields[static_cast<size_t>(time_col)], why);
    if (!t) return column_error(path, row.line, kTimeColumn, why);
    if (r == 1) {
      start = *t;
    } else if (*t != prev + 3600) {
      std::string msg;
      if (*t == prev)
        msg = fmt::format("duplicate hour {}", format_utc(*t));
      else if (*t < prev)
        msg = fmt::format("time goes backwards: {} after {}", format_utc(*t), format_utc(prev));
      else
        msg = fmt::format("gap: {} hour(s) missing between {} and {}", (*t - prev) / 3600 - 1,
                          format_utc(prev), format_utc(*t));
      return column_error(path, row.line, kTimeColumn,
                          msg + " (rows must be consecutive whole hours)");
    }
    prev = *t;
    const auto v = parse_value(row.fields[static_cast<size_t>(value_col)], why);
    if (!v) return column_error(path, row.line, value_name, why);
    if (*v < lowest || *v > highest)
      return column_error(path, row.line, value_name,
                          fmt::format("must be in [{}, {}] {}, got '{}'", lowest, highest, unit,
                                      excerpt(row.fields[static_cast<size_t>(value_col)])));
    values.push_back(*v);
  }
  return HourlySeries(start, std::move(values));
}

Result<HourlySeries> price_rows(const Result<std::vector<CsvRow>>& rows,
                                const std::string& origin) {
  return hourly_rows(
      rows, origin, kPriceColumn,
      [](std::string_view name) { return name == kPriceColumn ? 0 : -1; }, -kMaxUsdPerMwh,
      kMaxUsdPerMwh, "USD/MWh");
}

}  // namespace

Result<HourlySeries> read_price_csv(const std::string& path) {
  return price_rows(read_csv_file(path), path);
}

Result<HourlySeries> parse_price_csv(std::string_view text, const std::string& origin) {
  return price_rows(parse_csv_text(text, origin), origin);
}

Result<HourlySeries> read_carbon_csv(const std::string& path) {
  // "Carbon Intensity gCO₂eq/kWh (direct)": matched by prefix and suffix, so the non-ASCII
  // subscript in the middle does not matter.
  return hourly_rows(
      read_csv_file(path), path, "Carbon Intensity ... (direct)",
      [](std::string_view name) {
        return name.starts_with("Carbon Intensity") &&
                       name.find("(direct)") != std::string_view::npos
                   ? 0
                   : -1;
      },
      0, kMaxCarbonGPerKwh, "g/kWh");
}

}  // namespace frugal
