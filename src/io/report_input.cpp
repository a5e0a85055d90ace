#include "io/report_input.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "io/html_report.h"

namespace frugal {
namespace {

using nlohmann::json;

bool is_grouped(const json& doc) {
  return doc.is_object() && doc.contains("groups");
}

// The runs of an ungrouped document (one run: itself).
json runs_of(json doc) {
  if (doc.contains("runs")) return std::move(doc["runs"]);
  return json::array({std::move(doc)});
}

bool holds_a_run(const json& doc) {
  if (!doc.is_object()) return false;
  if (pack_document(doc) != nullptr) return true;
  if (is_grouped(doc)) {
    if (!doc["groups"].is_array()) return false;
    for (const json& g : doc["groups"])
      if (g.is_object() && g.contains("runs") && g["runs"].is_array() && !g["runs"].empty())
        return true;
    return false;
  }
  if (doc.contains("runs")) return doc["runs"].is_array() && !doc["runs"].empty();
  return doc.contains("policy");
}

}  // namespace

Result<json> read_report_document(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error{fmt::format("{}: cannot read", path)};
  std::ostringstream text;
  text << f.rdbuf();
  if (!f && !f.eof()) return Error{fmt::format("{}: cannot read", path)};
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::parse_error& e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line L, column C: ..."
    std::string what = e.what();
    if (const size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return Error{fmt::format("{}: not JSON: {} (byte {})", path, what, e.byte)};
  }
  if (!holds_a_run(doc))
    return Error{
        fmt::format("{}: holds no run (expected {{\"runs\": [...]}} or {{\"groups\": [{{\"name\", "
                    "\"runs\"}}]}}, as --report-json and bench/evaluate write them, or "
                    "frugal pack --format json's document)",
                    path)};
  return doc;
}

Result<json> join_report_documents(std::vector<json> docs, const std::vector<std::string>& paths) {
  if (docs.size() == 1) return std::move(docs.front());
  const auto name = [&](size_t i) {
    return i < paths.size() ? paths[i] : fmt::format("#{}", i + 1);
  };
  for (size_t i = 0; i < docs.size(); ++i)
    if (pack_document(docs[i]) != nullptr)
      return Error{fmt::format("{} is a pack run's document: it makes a page of its own", name(i))};
  size_t grouped = docs.size(), plain = docs.size();
  for (size_t i = docs.size(); i-- > 0;) (is_grouped(docs[i]) ? grouped : plain) = i;
  if (grouped < docs.size() && plain < docs.size())
    return Error{
        fmt::format("{} is grouped and {} is not: give grouped and ungrouped documents separately",
                    name(grouped), name(plain))};
  json out = json::array();
  for (json& d : docs) {
    json part = grouped < docs.size() ? std::move(d["groups"]) : runs_of(std::move(d));
    for (json& x : part) out.push_back(std::move(x));
  }
  return grouped < docs.size() ? json{{"groups", std::move(out)}} : json{{"runs", std::move(out)}};
}

}  // namespace frugal
