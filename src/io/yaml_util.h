#pragma once
// Internal helpers shared by the YAML readers (catalog_yaml.cpp, cluster_yaml.cpp). Not a
// public API. The helpers report bad input by throwing YamlInputError; every public entry
// point catches it (and any YAML::Exception) and returns an Error, so nothing escapes.
//
// Messages read "<origin>: <path>: <what> (line L, column C)", where <path> names the field,
// e.g. "regions[0].pools[1].node_groups[0].count".

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "model/result.h"

namespace frugal::yamlio {

// Carries a finished, user-facing message.
class YamlInputError : public std::runtime_error {
 public:
  explicit YamlInputError(const std::string& message) : std::runtime_error(message) {}
};

// Reads a whole file; the error names the path and the reason.
Result<std::string> read_text_file(const std::string& path);

// Parses `text` into a document. Throws YamlInputError naming origin, line and column on a
// syntax error, or when the document is empty.
YAML::Node parse_document(std::string_view text, const std::string& origin);

// "<path>.<key>", or "<key>" when path is empty.
std::string join(const std::string& path, std::string_view key);
// "<path>[<i>]".
std::string index(const std::string& path, size_t i);

// Reader context: the origin for messages plus typed accessors. Accessors take the parent
// map, the key and the parent's path; they throw YamlInputError on bad input.
class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}
  const std::string& origin() const { return origin_; }

  [[noreturn]] void fail(const std::string& path, const YAML::Node& at,
                         const std::string& what) const;

  void require_map(const YAML::Node& n, const std::string& path) const;
  void require_sequence(const YAML::Node& n, const std::string& path) const;
  // Fails naming every key of map `n` not in `allowed`, and listing the allowed ones.
  void check_keys(const YAML::Node& n, const std::string& path,
                  std::initializer_list<std::string_view> allowed) const;

  // The child `key` of map `parent`; fails when it is absent (or null).
  YAML::Node required(const YAML::Node& parent, const std::string& path,
                      std::string_view key) const;
  // The child, or nullopt when absent or null.
  std::optional<YAML::Node> optional(const YAML::Node& parent, std::string_view key) const;

  // Scalars. `path` is the full path of the value itself.
  std::string string_value(const YAML::Node& n, const std::string& path) const;  // non-empty
  double number_value(const YAML::Node& n, const std::string& path) const;       // finite
  int64_t integer_value(const YAML::Node& n, const std::string& path) const;

 private:
  std::string origin_;
};

// "(line L, column C)" for a node with a known position, "" otherwise.
std::string position(const YAML::Node& n);

}  // namespace frugal::yamlio
