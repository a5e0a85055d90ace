// frugal's native JSONL: one JSON object per line with the native CSV's keys (see
// trace_native.cpp). Numbers, strings, booleans and null are accepted for scalar keys (null
// = default); allowed_models may be an array of names or a '|'-separated string.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "io/trace_parsers.h"

namespace frugal {
namespace {

// The text form of a JSON value, as a native CSV cell would hold it.
Result<std::string> cell_text(const nlohmann::json& v, const std::string& key, const Where& w) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return std::string();
    case nlohmann::json::value_t::string:
      return v.get<std::string>();
    case nlohmann::json::value_t::boolean:
      return std::string(v.get<bool>() ? "true" : "false");
    case nlohmann::json::value_t::number_integer:
      return fmt::format("{}", v.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return fmt::format("{}", v.get<uint64_t>());
    case nlohmann::json::value_t::number_float:
      return fmt::format("{}", v.get<double>());
    case nlohmann::json::value_t::array: {
      std::string out;
      for (const auto& e : v) {
        if (!e.is_string()) return field_error(w, key, "expected an array of strings");
        if (!out.empty()) out += '|';
        out += e.get<std::string>();
      }
      return out;
    }
    default:
      return field_error(w, key, fmt::format("unexpected JSON value {}", v.dump()));
  }
}

Result<JobSpec> parse_object(std::string_view line, const Where& w, const GpuCatalog& catalog) {
  nlohmann::json obj = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (obj.is_discarded()) return Error{fmt::format("{}: not a valid JSON object", w.str())};
  if (!obj.is_object()) return Error{fmt::format("{}: expected a JSON object", w.str())};
  for (const char* key : {"id", "submit", "duration"})
    if (!obj.contains(key)) return Error{fmt::format("{}: missing key '{}'", w.str(), key)};
  JobSpec job;
  for (const auto& [key, value] : obj.items()) {
    auto text = cell_text(value, key, w);
    if (!text.ok()) return text.error();
    if (Status s = set_native_field(job, key, text.value(), w, catalog); !s.ok()) return s.error();
  }
  if (Status s = check_native_job(job, w); !s.ok()) return s.error();
  return job;
}

}  // namespace

Status read_native_jsonl(std::string_view text, const std::string& path,
                         const TraceOptions& options, Trace& trace) {
  JobCollector sink(trace, options);
  size_t pos = 0;
  size_t line_no = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const Where w{&path, line_no};
    if (Status s = sink.add(parse_object(line, w, *options.catalog), w); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace frugal
