// The service's shadow set on its own thread (service/shadows.h): the decision loop never
// waits for it — when more events wait than the bound, the shadows stop for good and say why.

#include <gtest/gtest.h>

#include "io/catalog_yaml.h"
#include "service/live_profile.h"
#include "service/shadows.h"

namespace frugal {
namespace {

TEST(ShadowSet, StopsInsteadOfMakingTheLoopWaitWhenTooFarBehind) {
  const GpuCatalog catalog = load_builtin_catalog().value();
  const ClusterSpec cluster = make_homogeneous_cluster(16, *catalog.find("A100-80GB"));
  ServiceConfig config;
  ShadowSet::Options opts;
  opts.queue_max = 10;
  auto made = ShadowSet::create({"fifo", "sjf"}, config, cluster, catalog,
                                service_engine_options(catalog, 1000, false), opts);
  ASSERT_TRUE(made.ok()) << made.error().message;
  ShadowSet& set = *made.value();
  JobSpec spec;
  spec.gpus = 1;
  spec.duration = 600;
  // The thread takes whole turns (up to an advance): eleven events with none wait in the
  // queue, and the eleventh finds it full.
  for (int64_t id = 1; id <= 10; ++id) set.submit(id, spec, 0);
  EXPECT_EQ(set.stopped(), "");
  set.submit(11, spec, 0);
  EXPECT_NE(set.stopped().find("fell 10 events behind"), std::string::npos) << set.stopped();
  set.advance(60);  // ignored from now on
  EXPECT_EQ(set.view()->stopped, set.stopped());
  EXPECT_EQ(set.view()->applied, 0u);
  EXPECT_EQ(set.events(), 11u);
}

TEST(ShadowSet, InlineAppliesEachCallAtOnce) {
  const GpuCatalog catalog = load_builtin_catalog().value();
  const ClusterSpec cluster = make_homogeneous_cluster(16, *catalog.find("A100-80GB"));
  ServiceConfig config;
  ShadowSet::Options opts;
  opts.own_thread = false;
  opts.queue_max = 1;  // no queue inline: never stops
  auto made = ShadowSet::create({"fifo", "sjf", "fifo"}, config, cluster, catalog,
                                service_engine_options(catalog, 1000, false), opts);
  ASSERT_TRUE(made.ok()) << made.error().message;
  ShadowSet& set = *made.value();
  EXPECT_EQ(set.size(), 2u);  // duplicates dropped
  JobSpec spec;
  spec.gpus = 1;
  spec.duration = 600;
  for (int64_t id = 1; id <= 3; ++id) set.submit(id, spec, 0);
  set.advance(0);
  const auto v = set.view();
  EXPECT_EQ(set.stopped(), "");
  EXPECT_EQ(v->applied, 4u);
  ASSERT_EQ(v->shadows.size(), 2u);
  for (const ShadowState& s : v->shadows) {
    EXPECT_EQ(s.events, 3u) << s.policy;
    EXPECT_EQ(s.windows[0].running, 3u) << s.policy;
  }
  // A new active policy gets a shadow of its own with the jobs of now.
  std::vector<std::pair<int64_t, std::shared_ptr<const JobSpec>>> now;
  for (int64_t id = 1; id <= 3; ++id) now.emplace_back(id, std::make_shared<const JobSpec>(spec));
  set.set_active("backfill", std::move(now), 10);
  set.advance(10);
  EXPECT_EQ(set.index_of("backfill"), 0u);
  const auto w = set.view();
  ASSERT_EQ(w->shadows.size(), 3u);
  EXPECT_EQ(w->shadows[0].policy, "backfill");
  EXPECT_EQ(w->shadows[0].jobs, 3u);
}

}  // namespace
}  // namespace frugal
