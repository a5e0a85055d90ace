// The NVML binding (drivers/nvml.h) against the project's fake libnvidia-ml
// (tests/fake_nvml): the documented entry points, the process query's grow-and-retry, and
// readings NVML does not support.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "drivers/nvml.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;

class NvmlFake : public ::testing::Test {
 protected:
  fs::path file = fs::temp_directory_path() / ("frugal-nvml-" + std::to_string(::getpid()));
  void SetUp() override { ::setenv("FRUGAL_FAKE_NVML", file.c_str(), 1); }
  void TearDown() override {
    ::unsetenv("FRUGAL_FAKE_NVML");
    fs::remove(file);
  }
  void write(const std::string& text) const { std::ofstream(file) << text; }
};

TEST_F(NvmlFake, ReadsEveryFieldFrugalUses) {
  std::string procs;
  for (int pid = 1000; pid < 1020; ++pid)
    procs += (procs.empty() ? "" : ",") + std::to_string(pid) + ":100";
  write(
      "# two cards\nNVIDIA L4;GPU-a;23034;2048;30;45;52;4711:2048\nNVIDIA L4;GPU-b;23034;0;0;20;;" +
      procs + "\n");
  auto nvml = Nvml::load(FRUGAL_FAKE_NVML_LIB);
  ASSERT_TRUE(nvml.ok()) << nvml.error().message;
  const auto gpus = nvml.value()->gpus();
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].model, "NVIDIA L4");
  EXPECT_EQ(gpus[1].uuid, "GPU-b");
  EXPECT_EQ(gpus[0].memory_mib, 23034);
  const auto s = nvml.value()->sample("n1");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].node, "n1");
  EXPECT_DOUBLE_EQ(s[0].utilization, 0.30);
  EXPECT_EQ(s[0].memory_used_mib, 2048);
  EXPECT_DOUBLE_EQ(s[0].power_w, 45);
  EXPECT_DOUBLE_EQ(s[0].temperature_c, 52);
  ASSERT_EQ(s[0].processes.size(), 1u);
  EXPECT_EQ(s[0].processes[0].pid, 4711);
  EXPECT_EQ(s[0].processes[0].memory_mib, 2048);
  EXPECT_LT(s[1].temperature_c, 0);       // not supported: unknown
  EXPECT_EQ(s[1].processes.size(), 20u);  // more than the first query's room
  // The load changes while loaded (the file is read at each query).
  write("NVIDIA L4;GPU-a;23034;2048;90;70;60\n");
  const auto again = nvml.value()->sample("n1");
  ASSERT_EQ(again.size(), 1u);
  EXPECT_DOUBLE_EQ(again[0].utilization, 0.90);
  EXPECT_TRUE(again[0].processes.empty());
}

// A process's own utilisation is not read, though the fake (like NVML) offers it: the
// query is costly and no split of a shared card (docs/TELEMETRY.md, "Shared cards").
TEST_F(NvmlFake, ReadsProcessesMemoryButNotTheirUtilization) {
  write("NVIDIA L4;GPU-a;23034;4096;90;70;60;100:2048:30,200:1024:60\n");
  auto nvml = Nvml::load(FRUGAL_FAKE_NVML_LIB);
  ASSERT_TRUE(nvml.ok()) << nvml.error().message;
  const auto s = nvml.value()->sample("n1");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].processes.size(), 2u);
  EXPECT_EQ(s[0].processes[0].memory_mib, 2048);
  EXPECT_EQ(s[0].processes[1].memory_mib, 1024);
  EXPECT_LT(s[0].processes[0].utilization, 0);
  EXPECT_LT(s[0].processes[1].utilization, 0);
}

TEST_F(NvmlFake, SaysWhyItCannotLoad) {
  auto missing = Nvml::load("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("NVML not loaded"), std::string::npos);
  ::unsetenv("FRUGAL_FAKE_NVML");  // the fake's nvmlInit fails as a host without a driver
  auto no_init = Nvml::load(FRUGAL_FAKE_NVML_LIB);
  ASSERT_FALSE(no_init.ok());
  EXPECT_NE(no_init.error().message.find("nvmlInit_v2 returned 12"), std::string::npos)
      << no_init.error().message;
}

}  // namespace
}  // namespace frugal
