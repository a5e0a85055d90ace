// The default explanations of a Filter's and a Placer's "no" (framework/plugin_status.h):
// the code tells "not now" from "not on this cluster", the reason names the resource.
#include "framework/plugin_status.h"

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "policy/admit_filter.h"
#include "policy/placer.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;
using testing::kV100;
using testing::StateView;
using testing::test_gpus;

TEST(PluginStatus, FilterTellsAMissingModelFromABusyOne) {
  const ClusterSpec spec = make_homogeneous_cluster(8, kA100, 4);
  const ClusterState st(spec, test_gpus());
  const StateView v(st);
  const auto filter = make_model_filter();
  JobSpec any = job("any", 0, 2, 100);
  EXPECT_TRUE(filter->explain(v, any).ok());
  JobSpec v100_only = any;
  v100_only.allowed_models = {kV100};  // not in this cluster
  const PluginStatus s = filter->explain(v, v100_only);
  EXPECT_EQ(s.code, PluginStatus::Code::kUnresolvable);
  EXPECT_EQ(s.point, "filter");
  EXPECT_EQ(s.reason, "model-constraint: no GPU model the job allows is up in the cluster");
  EXPECT_STREQ(to_string(s.code), "unresolvable");
}

TEST(PluginStatus, PlacerNamesTheRoomPerModel) {
  const ClusterSpec spec = make_homogeneous_cluster(8, kA100, 4);
  ClusterState st(spec, test_gpus());
  const auto placer = make_best_fit_placer();
  const Candidates c{{kA100}, {}};
  const JobSpec big = job("big", 0, 4, 100);
  EXPECT_TRUE(placer->explain(st, big, c, test_gpus()).ok());
  // Three GPUs taken on each node: one free on each, two in total.
  for (NodeId n = 0; n < 2; ++n) {
    Placement p;
    p.model = kA100;
    for (int16_t g = 0; g < 3; ++g) p.slots.push_back(Slot{n, g, kMilliPerGpu});
    ASSERT_TRUE(st.allocate(p, job("x", 0, 3, 100)).ok());
  }
  PluginStatus s = placer->explain(st, job("two", 0, 2, 100), c, test_gpus());
  EXPECT_EQ(s.code, PluginStatus::Code::kUnschedulable);
  EXPECT_EQ(s.point, "place");
  EXPECT_EQ(s.reason,
            "bestfit: needs 2 whole GPU(s) on one node (A100-80GB: at most 1 free on one node, 2 "
            "in total)");
  // A fractional job that asks for more memory than any card has free.
  JobSpec frac = job("frac", 0, 1, 100);
  frac.gpu_milli = 500;
  frac.gpu_memory_mib = 1 << 30;
  s = placer->explain(st, frac, c, test_gpus());
  EXPECT_EQ(s.reason.rfind("bestfit: no GPU has 500 milli-GPU and 1073741824 MiB free (", 0), 0U)
      << s.reason;
}

}  // namespace
}  // namespace frugal
