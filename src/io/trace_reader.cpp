// read_trace: reads the file, chooses the format (forced, or detected from the header line)
// and hands the table to the format's reader (trace_<format>.cpp). Detection rules are in
// docs/TRACE_FORMATS.md. For openb, a node list named openb_node_list_gpu_node.csv in the
// pod file's directory is loaded into Trace::cluster.

#include "io/trace_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "io/cluster_yaml.h"
#include "io/trace_parsers.h"

namespace frugal {
namespace {

// Column layouts used when a forced format meets a file without a header.
const std::vector<std::string> kItpLayout = {"job_id", "submission_time", "duration", "num_gpu"};
const std::vector<std::string> kElasticflowLayout = {
    "job_id",   "submission_time", "num_iteration", "model_name",
    "deadline", "batch_size",      "num_gpu",       "duration"};
const std::vector<std::string> kPolluxLayout = {"name", "time", "application", "num_replicas",
                                                "batch_size"};
const std::vector<std::string> kOpenbLayout = {
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

bool has(const std::vector<std::string>& cols, std::string_view name) {
  return std::find(cols.begin(), cols.end(), name) != cols.end();
}

// The format a header names, or "" when none.
std::string detect(const std::vector<std::string>& cols) {
  if (cols == kItpLayout) return "itp";
  if (has(cols, "num_iteration") && has(cols, "job_id")) return "elasticflow";
  if (has(cols, "cpu_milli") && has(cols, "gpu_milli") && has(cols, "num_gpu")) return "openb";
  if (has(cols, "application") && has(cols, "num_replicas")) return "pollux";
  if (has(cols, "id") && has(cols, "submit") && has(cols, "duration")) return "native";
  return "";
}

bool numeric_looking(std::string_view s) {
  if (s.empty()) return true;
  double d = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// True when a first line reads like data rather than column names: some field is a number.
bool looks_like_data(const std::vector<std::string>& fields) {
  for (const auto& f : fields) {
    if (!f.empty() && numeric_looking(f)) return true;
  }
  return false;
}

// The layout to assume for `format` on a headerless file of `n` fields (empty: none).
std::vector<std::string> headerless_layout(const std::string& format, size_t n) {
  if (format == "itp" && n == kItpLayout.size()) return kItpLayout;
  if (format == "elasticflow" && n == kElasticflowLayout.size()) return kElasticflowLayout;
  if (format == "pollux" && n == kPolluxLayout.size()) return kPolluxLayout;
  if (format == "openb" && (n == kOpenbLayout.size() || n == 5))
    return {kOpenbLayout.begin(), kOpenbLayout.begin() + static_cast<std::ptrdiff_t>(n)};
  return {};
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

Status load_openb_node_list(const std::string& path, const TraceOptions& options, Trace& trace) {
  std::error_code ec;
  const auto nodes = std::filesystem::path(path).parent_path() / "openb_node_list_gpu_node.csv";
  if (!std::filesystem::is_regular_file(nodes, ec)) return Status::Ok();
  auto cluster = read_openb_nodes(nodes.string(), *options.catalog);
  if (!cluster.ok()) return cluster.error();
  trace.cluster = std::move(cluster).value();
  return Status::Ok();
}

}  // namespace

std::vector<std::string> trace_formats() {
  return {"itp", "elasticflow", "openb", "pollux", "native"};
}

Result<Trace> read_trace(const std::string& path, const TraceOptions& options) {
  const auto formats = trace_formats();
  if (!options.format.empty() &&
      std::find(formats.begin(), formats.end(), options.format) == formats.end())
    return Error{fmt::format("unknown trace format '{}' (valid: {})", options.format,
                             fmt::join(formats, ", "))};
  if (options.catalog == nullptr)
    return Error{fmt::format("{}: no GPU catalog given to the trace reader", path)};

  auto text = read_text_file(path);
  if (!text.ok()) return text.error();
  const std::string& body = text.value();
  const size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return Error{fmt::format("{}: empty file (no header, no jobs)", path)};

  Trace trace;
  trace.source = path;
  if (body[first] == '{' && (options.format.empty() || options.format == "native")) {
    trace.format = "native";
    if (Status s = read_native_jsonl(body, path, options, trace); !s.ok()) return s.error();
    return trace;
  }

  auto rows = parse_csv_text(body, path);
  if (!rows.ok()) return rows.error();
  Table table;
  table.path = &path;
  table.rows = std::move(rows).value();
  CsvRow& head = table.rows.front();
  for (auto& f : head.fields) f = trim(f);

  std::string format = options.format;
  const std::string detected = detect(head.fields);
  if (format.empty()) {
    if (detected.empty()) {
      if (looks_like_data(head.fields))
        return Error{fmt::format(
            "{}:{}: no header line (the first line looks like data); name the format with "
            "--trace-format (one of: {})",
            path, head.line, fmt::join(formats, ", "))};
      return Error{fmt::format(
          "{}:{}: unrecognised header '{}'; name the format with --trace-format (one of: {})", path,
          head.line, fmt::join(head.fields, ","), fmt::join(formats, ", "))};
    }
    format = detected;
  }

  if (detected == format || (!detected.empty() && format == "native" && detected == "native")) {
    table.columns = std::move(head.fields);
    table.header_line = head.line;
    table.rows.erase(table.rows.begin());
  } else if (auto layout = headerless_layout(format, head.fields.size());
             !layout.empty() && looks_like_data(head.fields)) {
    table.columns = std::move(layout);
    table.header_line = 0;
  } else {
    // A forced format whose required columns are checked by the reader itself.
    table.columns = std::move(head.fields);
    table.header_line = head.line;
    table.rows.erase(table.rows.begin());
  }
  trace.format = format;
  // A column named twice: which one a reader takes would be arbitrary.
  for (size_t i = 0; i < table.columns.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (!table.columns[i].empty() && table.columns[i] == table.columns[k])
        return Error{fmt::format("{}:{}: column '{}' appears twice (columns {} and {})", path,
                                 table.header_line, table.columns[i], k + 1, i + 1)};

  Status s;
  if (format == "itp")
    s = read_itp_table(table, options, trace);
  else if (format == "elasticflow")
    s = read_elasticflow_table(table, options, trace);
  else if (format == "openb")
    s = read_openb_table(table, options, trace);
  else if (format == "pollux")
    s = read_pollux_table(table, options, trace);
  else
    s = read_native_table(table, options, trace);
  if (!s.ok()) return s.error();
  if (format == "openb") {
    if (Status n = load_openb_node_list(path, options, trace); !n.ok()) return n.error();
  }
  return trace;
}

}  // namespace frugal
