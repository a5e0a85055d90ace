// The agent's report window (agent/report_window.h): samples folded into one report — means
// for utilisation, power, CPU busy and each process's own utilisation, maxima for memory and
// temperature — and a fresh window after take().
#include "agent/report_window.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

GpuTelemetry gpu(double util, int64_t used, double power, double temp,
                 std::vector<GpuProcess> procs = {}) {
  GpuTelemetry g;
  g.gpu = 0;
  g.utilization = util;
  g.memory_used_mib = used;
  g.memory_total_mib = 24000;
  g.power_w = power;
  g.temperature_c = temp;
  g.processes = std::move(procs);
  return g;
}

TEST(ReportWindow, MeansMaximaAndEachProcesssOwnUtilization) {
  ReportWindow w("gpu1");
  HostLoad h;
  h.cpu_busy = 0.2;
  w.add(100, {gpu(0.2, 1000, 40, 50, {GpuProcess{7, 900, "3", "", 0.1}})}, h);
  h.cpu_busy = 0.4;
  w.add(101,
        {gpu(0.6, 3000, 60, 70,
             {GpuProcess{7, 2900, "3", "", 0.5}, GpuProcess{8, 100, "4", "", -1}})},
        h);
  const NodeReport r = w.take(102);
  EXPECT_EQ(r.node, "gpu1");
  EXPECT_EQ(r.samples, 2);
  EXPECT_DOUBLE_EQ(r.window_s, 2);
  EXPECT_DOUBLE_EQ(r.host.cpu_busy, 0.3);
  ASSERT_EQ(r.gpus.size(), 1u);
  const GpuTelemetry& g = r.gpus[0];
  EXPECT_DOUBLE_EQ(g.utilization, 0.4);
  EXPECT_DOUBLE_EQ(g.power_w, 50);
  EXPECT_EQ(g.memory_used_mib, 3000);
  EXPECT_DOUBLE_EQ(g.temperature_c, 70);
  ASSERT_EQ(g.processes.size(), 2u);
  EXPECT_EQ(g.processes[0].memory_mib, 2900);
  EXPECT_DOUBLE_EQ(g.processes[0].utilization, 0.3);
  EXPECT_LT(g.processes[1].utilization, 0);  // never measured: unknown
  // The next window starts empty.
  w.add(103, {gpu(0.9, 500, 70, 40)}, HostLoad{});
  const NodeReport next = w.take(104);
  EXPECT_EQ(next.samples, 1);
  EXPECT_DOUBLE_EQ(next.gpus[0].utilization, 0.9);
  EXPECT_TRUE(next.gpus[0].processes.empty());
}

}  // namespace
}  // namespace frugal
