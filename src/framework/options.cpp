#include "framework/options.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace frugal {

OptionValues::OptionValues(const std::vector<OptionSpec>& specs) {
  for (const OptionSpec& s : specs) {
    keys_.push_back(s.key);
    values_.push_back(s.fallback);
    given_.push_back(0);
  }
}

size_t OptionValues::index(std::string_view key) const {
  const auto it = std::find(keys_.begin(), keys_.end(), key);
  if (it == keys_.end()) {
    fmt::print(stderr, "frugal: internal error: option '{}' is not declared\n", key);
    std::abort();
  }
  return static_cast<size_t>(it - keys_.begin());
}

double OptionValues::number(std::string_view key) const {
  return values_[index(key)];
}

bool OptionValues::given(std::string_view key) const {
  return given_[index(key)] != 0;
}

void OptionValues::set(std::string_view key, double value) {
  const size_t i = index(key);
  values_[i] = value;
  given_[i] = 1;
}

std::vector<std::string> split_option_items(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find(':', start), text.size());
    if (end > start) items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

Result<double> parse_option_number(const std::string& item, const std::string& what) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos) return Error{fmt::format("{} '{}': expected key=value", what, item)};
  const std::string val = item.substr(eq + 1);
  char* endp = nullptr;
  const double x = std::strtod(val.c_str(), &endp);
  if (val.empty() || *endp != '\0' || !std::isfinite(x) || x < 0)
    return Error{fmt::format("{} '{}': not a non-negative number", what, item)};
  return x;
}

std::string option_keys(const std::vector<OptionSpec>& specs) {
  std::string out;
  for (const OptionSpec& s : specs) out += (out.empty() ? "" : ", ") + s.key;
  return out;
}

std::string default_text(const OptionSpec& spec) {
  if (spec.type == OptionSpec::Type::kFlag) return spec.fallback != 0 ? "1" : "0";
  return fmt::format("{:g}", spec.fallback);
}

Result<OptionValues> parse_options(const std::vector<OptionSpec>& specs, const std::string& text,
                                   const std::string& what) {
  OptionValues values(specs);
  for (const std::string& item : split_option_items(text)) {
    const std::string key = item.substr(0, item.find('='));
    const auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.key == key; });
    if (spec == specs.end())
      return Error{fmt::format("{} option '{}': known keys {}", what, key, option_keys(specs))};
    if (spec->type == OptionSpec::Type::kFlag) {
      const std::string value = item.substr(key.size() + (key.size() < item.size() ? 1 : 0));
      if (value != "0" && value != "1")
        return Error{fmt::format("{} option '{}': must be 0 or 1", what, item)};
      values.set(key, value == "1" ? 1 : 0);
      continue;
    }
    auto x = parse_option_number(item, what + " option");
    if (!x.ok()) return x.error();
    if (spec->most >= 0 && x.value() > spec->most)
      return Error{spec->unit == "s" && spec->most >= 86400
                       ? fmt::format("{} option '{}': at most {:.0f} s ({:.0f} days)", what, item,
                                     spec->most, spec->most / 86400)
                       : fmt::format("{} option '{}': at most {:g}{}", what, item, spec->most,
                                     spec->unit.empty() ? "" : " " + spec->unit)};
    values.set(key, x.value());
  }
  return values;
}

}  // namespace frugal
