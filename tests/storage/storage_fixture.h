#pragma once
// Shared by the storage manager's tests: real folders under $TMPDIR as hot, warm and cold
// tiers, a database file beside them, and small file helpers.

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../common/file_util.h"
#include "storage/files.h"
#include "storage/storage_manager.h"

namespace frugal::storage::testing {

inline std::string make_temp_root() {
  const char* env = std::getenv("TMPDIR");
  std::string templ = std::string(env && *env ? env : "/tmp") + "/frugal-storage-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const char* made = ::mkdtemp(buf.data());
  return made ? std::string(made) : std::string();
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline std::string read_file(const std::string& path) {
  return frugal::testing::slurp(path);
}

// Sets a file's mtime (seconds since the epoch).
inline void set_mtime(const std::string& path, double t) {
  struct timespec ts[2];
  ts[0].tv_sec = static_cast<time_t>(t);
  ts[0].tv_nsec = 0;
  ts[1] = ts[0];
  ::utimensat(AT_FDCWD, path.c_str(), ts, 0);
}

// Every path under `root` whose name holds the manager's temporary infix.
inline std::vector<std::string> temporaries(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().filename().string().find(kTmpInfix) != std::string::npos)
      out.push_back(it->path().string());
  return out;
}

class StorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = make_temp_root();
    ASSERT_FALSE(root.empty());
    for (const char* t : {"hot", "warm", "cold", "jobs", "src"})
      std::filesystem::create_directories(root + "/" + t);
    config.enabled = true;
    config.tiers = {TierConfig{"hot", root + "/hot", "", 0, 0.10, 3000, 2000, ""},
                    TierConfig{"warm", root + "/warm", "", 0, 0.03, 500, 500, ""},
                    TierConfig{"cold", root + "/cold", "", 0, 0.004, 100, 100, ""}};
    db_path = root + "/state.db";
  }
  void TearDown() override {
    std::error_code ec;
    // Objects are read-only files in writable folders: remove_all copes.
    std::filesystem::remove_all(root, ec);
  }

  std::unique_ptr<StorageManager> open_manager(FaultHook hook = {}) {
    auto m = StorageManager::open(config, db_path, std::move(hook));
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
    return m.ok() ? std::move(m).value() : nullptr;
  }

  TierConfig& tier(const std::string& name) {
    for (TierConfig& t : config.tiers)
      if (t.name == name) return t;
    return config.tiers.front();
  }

  // A checkpoint folder <jobs>/<job>/<name> with two files; complete unless told.
  std::string make_checkpoint(const std::string& job, const std::string& name, bool complete,
                              double completed_at = 0) {
    const std::string dir = root + "/jobs/" + job + "/" + name;
    write_file(dir + "/model.bin", std::string(4096, 'm') + name);
    write_file(dir + "/optim/state.bin", std::string(2048, 'o') + name + job);
    if (complete) {
      write_file(dir + "/" + config.marker, "");
      if (completed_at > 0) set_mtime(dir + "/" + config.marker, completed_at);
    }
    return dir;
  }

  std::string job_dir(const std::string& job) const { return root + "/jobs/" + job; }

  std::string root, db_path;
  StorageConfig config;
};

}  // namespace frugal::storage::testing
