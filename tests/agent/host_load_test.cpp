#include "agent/host_load.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace frugal {
namespace {

namespace fs = std::filesystem;

struct FakeProc {
  fs::path dir;
  FakeProc() : dir(fs::temp_directory_path() / ("frugal-proc-" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
  }
  ~FakeProc() { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
  }
};

TEST(AgentHostLoad, CpuBusyIsTheChangeBetweenReads) {
  FakeProc p;
  // user nice system idle iowait irq softirq steal
  p.write("stat",
          "cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 50 0 50 350 50 0 0 0\ncpu1 50 0 50 350 50 0 0 "
          "0\nintr 1\n");
  p.write("meminfo", "MemTotal:       16384000 kB\nMemFree:  1 kB\nMemAvailable:    4096000 kB\n");
  HostLoadReader r(p.dir.string());
  Result<HostLoad> first = r.read();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_LT(first.value().cpu_busy, 0);  // nothing to compare with yet
  EXPECT_EQ(first.value().cpu_count, 2);
  EXPECT_EQ(first.value().memory_total_mib, 16000);
  EXPECT_EQ(first.value().memory_used_mib, 12000);
  // 1000 more jiffies, 300 of them idle or iowait: 70 % busy.
  p.write("stat", "cpu  400 200 300 900 200 0 0 0 0 0\ncpu0 1 0 0 0\ncpu1 1 0 0 0\n");
  Result<HostLoad> second = r.read();
  ASSERT_TRUE(second.ok());
  EXPECT_NEAR(second.value().cpu_busy, 0.7, 1e-9);
}

TEST(AgentHostLoad, MissingOrBrokenFilesAreNamed) {
  FakeProc p;
  HostLoadReader r(p.dir.string());
  Result<HostLoad> none = r.read();
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("/stat"), std::string::npos);
  p.write("stat", "intr 1\n");
  Result<HostLoad> broken = r.read();
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("no aggregate cpu line"), std::string::npos);
  p.write("stat", "cpu  1 1 1 1\n");
  p.write("meminfo", "MemFree: 1 kB\n");
  Result<HostLoad> nomem = r.read();
  ASSERT_FALSE(nomem.ok());
  EXPECT_NE(nomem.error().message.find("MemTotal"), std::string::npos);
}

TEST(AgentHostLoad, ReadsThisHost) {
  HostLoadReader r;
  ASSERT_TRUE(r.read().ok());
  Result<HostLoad> h = r.read();
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_GE(h.value().cpu_count, 1);
  EXPECT_GT(h.value().memory_total_mib, 0);
  EXPECT_LE(h.value().memory_used_mib, h.value().memory_total_mib);
}

}  // namespace
}  // namespace frugal
