#pragma once
// The Prometheus text exposition format (0.0.4), the pieces every /metrics renderer shares:
// escaping of label values and HELP text, a metric family's header, one sample line.
// Pure functions of their arguments; thread-safe. docs/METRICS.md lists what is served.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frugal {

// `v` escaped for use between the double quotes of a label value: backslash → \\, double
// quote → \", newline → \n; every other byte unchanged (the format is UTF-8).
std::string escape_label_value(std::string_view v);

// Label name → value (unescaped), rendered in this order. Names must be valid Prometheus
// label names ([a-zA-Z_][a-zA-Z0-9_]*); the caller's constants, not checked.
using PromLabels = std::vector<std::pair<std::string_view, std::string>>;

// Appends "# HELP name help" (help escaped: backslash, newline) and "# TYPE name type".
void render_header(std::string_view name, std::string_view type, std::string_view help,
                   std::string& out);

// `{k="v",...}` with values escaped by escape_label_value; "" when `labels` is empty.
std::string label_set(const PromLabels& labels);

// Appends `name{k="v",...} value` and a newline (no braces when `labels` is empty).
void render_sample(std::string_view name, const PromLabels& labels, double value, std::string& out);
// The same with the label set already rendered by label_set (for families that share it).
void render_sample_set(std::string_view name, std::string_view labels, double value,
                       std::string& out);

}  // namespace frugal
