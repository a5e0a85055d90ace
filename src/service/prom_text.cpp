#include "service/prom_text.h"

#include <fmt/format.h>

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

void render_sample(std::string_view name, const PromLabels& labels, double value,
                   std::string& out) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out += ',';
      out += fmt::format("{}=\"{}\"", labels[i].first, escape_label_value(labels[i].second));
    }
    out += '}';
  }
  out += fmt::format(" {}\n", value);
}

}  // namespace frugal
