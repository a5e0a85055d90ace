#pragma once
// Helpers for the trace reader tests: a hand-built GPU catalog (the real loader lives
// elsewhere), paths into ../shared/data, and temporary files holding broken inputs.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/trace_reader.h"
#include "model/gpu_catalog.h"

namespace frugal::testing {

inline const GpuCatalog& test_catalog() {
  static const GpuCatalog catalog({
      GpuModel{"A100-80GB", {"A100"}, 81920, {1, 1, 1, 1}, "test"},
      GpuModel{"H100", {"H100-80GB"}, 81920, {2, 2, 2, 2}, "test"},
      GpuModel{"V100M16", {"V100"}, 16384, {0.5, 0.5, 0.5, 0.5}, "test"},
      GpuModel{"V100M32", {}, 32768, {0.5, 0.5, 0.5, 0.5}, "test"},
      GpuModel{"P100", {}, 16384, {0.3, 0.3, 0.3, 0.3}, "test"},
      GpuModel{"T4", {}, 15360, {0.2, 0.2, 0.2, 0.2}, "test"},
      GpuModel{"A10", {}, 23028, {0.4, 0.4, 0.4, 0.4}, "test"},
      GpuModel{"G2", {}, 16384, {0.4, 0.4, 0.4, 0.4}, "test"},
      GpuModel{"G3", {}, 32768, {0.6, 0.6, 0.6, 0.6}, "test"},
  });
  return catalog;
}

inline TraceOptions options(std::string format = "", bool skip = false) {
  TraceOptions o;
  o.format = std::move(format);
  o.skip_bad_rows = skip;
  o.catalog = &test_catalog();
  return o;
}

inline std::filesystem::path shared_data() {
  return FRUGAL_SHARED_DATA;
}

// Skips the test when ../shared/data is absent.
#define FRUGAL_REQUIRE_SHARED_DATA()                                      \
  do {                                                                    \
    if (!std::filesystem::is_directory(::frugal::testing::shared_data())) \
      GTEST_SKIP() << "no shared data at " << FRUGAL_SHARED_DATA;         \
  } while (0)

// A fresh temporary directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            (std::string("frugal_io_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to `name` inside the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = path_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Copies a real file into `dir` as `name`, replacing its 1-based line `line` by `text`
// (every line ends with a newline in the copy).
inline std::string copy_with_line(const TempDir& dir, const std::filesystem::path& src,
                                  const std::string& name, size_t line, const std::string& text) {
  std::ifstream in(src, std::ios::binary);
  std::string out, l;
  size_t n = 0;
  while (std::getline(in, l)) {
    ++n;
    out += (n == line ? text : l);
    out += '\n';
  }
  return dir.write(name, out);
}

}  // namespace frugal::testing
