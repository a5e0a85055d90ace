#pragma once
// Typed plugin options: each plugin (or profile) declares its options — name, type, default,
// bound, one line of help — and gets them parsed from a policy string's "key=value:key=value"
// list with errors that name the item. `frugal policies` prints the same declarations, so
// the documentation of every option is generated from the code that parses it.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.h"

namespace frugal {

struct OptionSpec {
  enum class Type { kFlag, kNumber };
  std::string key;
  Type type = Type::kNumber;
  double fallback = 0;  // the default (a flag: 0 or 1)
  double most = -1;     // numbers: the largest value accepted (< 0: any)
  std::string unit;     // numbers: "s" for seconds, "" otherwise (for messages and listings)
  std::string help;     // one line
};

// Option values after parsing: one per declared option (its default when not given).
class OptionValues {
 public:
  OptionValues() = default;
  explicit OptionValues(const std::vector<OptionSpec>& specs);
  // The value of a declared option; a key not declared is a programming error (aborts).
  double number(std::string_view key) const;
  bool flag(std::string_view key) const { return number(key) != 0; }
  // Whether the policy string gave the option.
  bool given(std::string_view key) const;
  void set(std::string_view key, double value);

 private:
  size_t index(std::string_view key) const;
  std::vector<std::string> keys_;
  std::vector<double> values_;
  std::vector<char> given_;
};

// The non-empty items of a ':'-separated option list ("a=1:b=2" → {"a=1", "b=2"}).
std::vector<std::string> split_option_items(const std::string& text);
// The value of a "key=value" option item as a finite non-negative number; errors start with
// `what` and name the item.
Result<double> parse_option_number(const std::string& item, const std::string& what);
// Parses `text` ("key=value" items separated by ':') against `specs`. Errors read
// "<what> option '<item>': <why>"; an unknown key lists the known ones.
Result<OptionValues> parse_options(const std::vector<OptionSpec>& specs, const std::string& text,
                                   const std::string& what);
// The declared keys, comma-separated (for messages).
std::string option_keys(const std::vector<OptionSpec>& specs);
// An option's default as text: "0"/"1" for flags, "%g" for numbers.
std::string default_text(const OptionSpec& spec);

}  // namespace frugal
