// The dry-run backend resumes a preempted run with the work it kept: a run lasts what is left
// of its estimate (LaunchSpec::run_s), which is when the engine expects it to end. A run that
// lasted its whole estimate again after each preemption would outlive the engine's
// expectation, be preempted again as a job whose end is unknown, and never finish.

#include <gtest/gtest.h>

#include "dry_run_fixture.h"

namespace frugal {
namespace {

using dry_run_test::kAdmin;
using dry_run_test::Live;
using dry_run_test::settle;

TEST(DryRunResume, APreemptedRunResumesWithWhatIsLeftOfItsEstimate) {
  Live live("tiers");
  live.nodes.resize(1);  // one node of 8 A100
  live.cluster =
      cluster_from_inventory(Inventory{live.nodes, "config", ""}, live.cfg, live.catalog).value();
  const double t0 = 1796083200.0;
  live.clock = std::make_shared<ManualClock>(t0);
  auto s = live.make();

  JobRequest general;
  general.name = "long";
  general.command = "train";
  general.gpus = 8;
  general.estimate_s = 3600;
  general.tier = Tier::kGeneral;
  ASSERT_EQ(s->submit(Principal{"alpha", false}, general).get().status, 201);
  settle(*s, *live.dry_run);
  EXPECT_EQ(live.dry_run->next_end(), t0 + 3600);

  // A core job for the whole node after 1,000 s: the general one is checkpointed and
  // preempted (the dry run stops at once), the core one runs 600 s.
  live.clock->set(t0 + 1000);
  settle(*s, *live.dry_run);
  JobRequest core = general;
  core.name = "urgent";
  core.estimate_s = 600;
  core.tier = Tier::kCore;
  ASSERT_EQ(s->submit(Principal{"beta", false}, core).get().status, 201);
  settle(*s, *live.dry_run);
  EXPECT_EQ(live.dry_run->next_end(), t0 + 1600);

  // The core job ends; the general one starts again with 2,600 s of its 3,600 left.
  live.clock->set(t0 + 1600);
  settle(*s, *live.dry_run);
  EXPECT_EQ(live.dry_run->next_end(), t0 + 4200);
  live.clock->set(t0 + 4200);
  settle(*s, *live.dry_run);

  const nlohmann::json a = s->get_job(kAdmin, 1).get().body;
  EXPECT_EQ(a["state"], "completed") << a.dump();
  EXPECT_EQ(a["restart_count"], 1);
  EXPECT_EQ(a["finished_at"].get<double>(), t0 + 4200);
  const nlohmann::json b = s->get_job(kAdmin, 2).get().body;
  EXPECT_EQ(b["state"], "completed") << b.dump();
  EXPECT_EQ(b["finished_at"].get<double>(), t0 + 1600);
}

}  // namespace
}  // namespace frugal
