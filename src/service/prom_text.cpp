#include "service/prom_text.h"

#include <fmt/format.h>

#include <iterator>

namespace frugal {

namespace {

// Backslash and newline escaped, and double quotes too when `quote` (label values; HELP
// text keeps them).
std::string escape(std::string_view v, bool quote) {
  std::string out;
  out.reserve(v.size());
  for (const char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_label_value(std::string_view v) {
  return escape(v, true);
}

void render_header(std::string_view name, std::string_view type, std::string_view help,
                   std::string& out) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape(help, false), name, type);
}

std::string label_set(const PromLabels& labels) {
  if (labels.empty()) return {};
  std::string out = "{";
  for (const auto& [name, value] : labels) {
    if (out.size() > 1) out += ',';
    out += name;
    out += "=\"";
    out += escape_label_value(value);
    out += '"';
  }
  out += '}';
  return out;
}

void render_sample(std::string_view name, const PromLabels& labels, double value,
                   std::string& out) {
  render_sample_set(name, label_set(labels), value, out);
}

void render_sample_set(std::string_view name, std::string_view labels, double value,
                       std::string& out) {
  out += name;
  out += labels;
  fmt::format_to(std::back_inserter(out), " {}\n", value);
}

}  // namespace frugal
