#pragma once
// The input of `frugal report` (cli/cmd_report.cpp): report documents as `simulate`,
// `compare` and `whatif` write them with --report-json (io/run_json.h) or grouped as
// `bench/evaluate --html` writes them (io/html_report.h), read from files and joined.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/result.h"

namespace frugal {

// The document in file `path`: {"runs": [...]}, {"groups": [...]}, one run, or a pack run's
// (`frugal pack --format json`, alone or as {"pack": ...}). Errors name the file: unreadable,
// not JSON (with the parser's line and column), or holding no run.
Result<nlohmann::json> read_report_document(const std::string& path);

// `docs` (read from `paths`, same order) as one document: one is returned as it is; several
// ungrouped ones give {"runs": [their runs, in order]}, several grouped ones {"groups": [their
// groups, in order]}. Errors: grouped and ungrouped documents mixed (naming the first of
// each); a pack run's document among several (it makes a page of its own).
Result<nlohmann::json> join_report_documents(std::vector<nlohmann::json> docs,
                                             const std::vector<std::string>& paths);

}  // namespace frugal
