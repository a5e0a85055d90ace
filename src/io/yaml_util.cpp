#include "io/yaml_util.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace frugal::yamlio {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open: " + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{path + ": read error"};
  return text.str();
}

std::string position(const YAML::Node& n) {
  if (!n.IsDefined()) return "";
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return "";
  return "(line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1) + ")";
}

YAML::Node parse_document(std::string_view text, const std::string& origin) {
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::string where = origin;
    if (!e.mark.is_null())
      where += ": line " + std::to_string(e.mark.line + 1) + ", column " +
               std::to_string(e.mark.column + 1);
    throw YamlInputError(where + ": invalid YAML: " + e.msg);
  }
  if (!doc.IsDefined() || doc.IsNull()) throw YamlInputError(origin + ": empty document");
  return doc;
}

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

void Reader::fail(const std::string& path, const YAML::Node& at, const std::string& what) const {
  std::string msg = origin_ + ": ";
  if (!path.empty()) msg += path + ": ";
  msg += what;
  const std::string pos = position(at);
  if (!pos.empty()) msg += " " + pos;
  throw YamlInputError(msg);
}

namespace {

// A scalar as it may appear in a message: at most 40 characters, control and non-ASCII
// bytes written as \xNN.
std::string quoted(const std::string& s) {
  static const char* kHex = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > 40) out += "...";
  return out + "'";
}

std::string kind(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return quoted(n.Scalar());
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

}  // namespace

void Reader::require_map(const YAML::Node& n, const std::string& path) const {
  if (!n.IsMap()) fail(path, n, "expected a map of keys, got " + kind(n));
}

void Reader::require_sequence(const YAML::Node& n, const std::string& path) const {
  if (!n.IsSequence()) fail(path, n, "expected a list, got " + kind(n));
}

void Reader::check_keys(const YAML::Node& n, const std::string& path,
                        std::initializer_list<std::string_view> allowed) const {
  std::string unknown;
  YAML::Node first_bad;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) fail(path, kv.first, "keys must be plain names");
    const std::string& key = kv.first.Scalar();
    bool ok = false;
    for (std::string_view a : allowed) ok = ok || key == a;
    if (ok) continue;
    if (unknown.empty()) first_bad = kv.first;
    unknown += (unknown.empty() ? "'" : ", '") + key + "'";
  }
  if (unknown.empty()) return;
  std::string known;
  for (std::string_view a : allowed) known += (known.empty() ? "" : ", ") + std::string(a);
  fail(path, first_bad, "unknown key(s) " + unknown + " (allowed: " + known + ")");
}

YAML::Node Reader::required(const YAML::Node& parent, const std::string& path,
                            std::string_view key) const {
  const YAML::Node child = parent[std::string(key)];
  if (!child.IsDefined() || child.IsNull())
    fail(join(path, key), parent, "required field is missing");
  return child;
}

std::optional<YAML::Node> Reader::optional(const YAML::Node& parent, std::string_view key) const {
  const YAML::Node child = parent[std::string(key)];
  if (!child.IsDefined() || child.IsNull()) return std::nullopt;
  return child;
}

std::string Reader::string_value(const YAML::Node& n, const std::string& path) const {
  if (!n.IsScalar()) fail(path, n, "expected a text value, got " + kind(n));
  const std::string& s = n.Scalar();
  if (s.empty()) fail(path, n, "must not be empty");
  return s;
}

double Reader::number_value(const YAML::Node& n, const std::string& path) const {
  if (!n.IsScalar()) fail(path, n, "expected a number, got " + kind(n));
  double v = 0;
  if (!YAML::convert<double>::decode(n, v)) fail(path, n, "expected a number, got " + kind(n));
  if (!std::isfinite(v)) fail(path, n, "must be a finite number, got " + n.Scalar());
  return v;
}

int64_t Reader::integer_value(const YAML::Node& n, const std::string& path) const {
  if (!n.IsScalar()) fail(path, n, "expected an integer, got " + kind(n));
  int64_t v = 0;
  if (!YAML::convert<int64_t>::decode(n, v))
    fail(path, n, "expected an integer (at most 19 digits), got " + kind(n));
  return v;
}

}  // namespace frugal::yamlio
