#pragma once
// Shared by tests that read files they or the binary under test wrote.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace frugal::testing {

// The whole file (bytes as they are); "" when it cannot be read.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace frugal::testing
