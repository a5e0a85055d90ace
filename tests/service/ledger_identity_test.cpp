// One run accounting for simulation and the live service (issue 19): the same 50-job
// workload through `simulate` and through the service — its real loop, engine and SQLite
// store, the dry-run backend ending each run after its estimate, on a ManualClock that the
// test moves from event to event — gives the same ledger JSON (docs/REPORT.md's shape),
// idle capacity included. Then a restart rebuilds the same ledger from the store.
// Policies that never move a running job (fifo, backfill, sjf). The dry-run backend resumes
// a preempted run with what is left of its estimate, as the simulator does; frugal's moves
// and resizes still differ (the live ledger books rework of about $0.10 per move that the
// simulated one does not): not compared here.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "dry_run_fixture.h"
#include "io/report.h"
#include "policy/profile.h"
#include "service/scheduler.h"
#include "service/serve.h"
#include "sim/simulator.h"

namespace frugal {
namespace {

using dry_run_test::finished;
using dry_run_test::ledger_of;
using dry_run_test::Live;
using dry_run_test::run_workload;
using dry_run_test::spec_of;
using dry_run_test::Workload;
using dry_run_test::workload;

void expect_same_ledger(const std::string& policy) {
  Live live(policy);
  const double epoch = static_cast<double>(live.cluster.epoch_unix_s);
  const Workload w = workload(1796083200.0);  // 2026-12-01T00:00:00Z

  // Simulated: the same cluster, the same jobs, the service's engine options.
  std::vector<JobSpec> specs;
  for (size_t i = 0; i < w.requests.size(); ++i)
    specs.push_back(spec_of(static_cast<int64_t>(i + 1), w.requests[i].first, w.requests[i].second,
                            w.submit_unix[i], epoch));
  SimOptions o;
  o.reference_model = *live.catalog.find("A100-80GB");
  o.static_capacity = true;
  o.check_invariants = true;
  const SimResult sim =
      simulate(specs, live.cluster, live.catalog, make_profile(policy).value(), o);
  ASSERT_TRUE(sim.invariant_violation.empty()) << sim.invariant_violation;
  ASSERT_EQ(sim.stopped, "");
  const nlohmann::json expected = to_json(sim.ledger);

  // Live: submissions and run ends at the same instants, each instant one or more turns.
  live.clock = std::make_shared<ManualClock>(w.submit_unix.front());
  auto s = live.make();
  run_workload(live, s, w);
  if (::testing::Test::HasFatalFailure()) return;
  const nlohmann::json got = ledger_of(*s);
  EXPECT_EQ(got.dump(2), expected.dump(2));
  EXPECT_GT(got["cost"]["unattributed_usd"].get<double>(), 0);  // idle capacity is priced

  // After a restart the ledger is rebuilt from the stored segments and job ends: the jobs'
  // accounts are the same (capacity before the restart is not stored: see docs/API.md).
  s.reset();
  auto again = live.make();
  const nlohmann::json rebuilt = ledger_of(*again);
  EXPECT_EQ(rebuilt["by_team"].size(), expected["by_team"].size());
  for (const auto& [team, a] : expected["by_team"].items())
    EXPECT_EQ(rebuilt["by_team"][team].dump(), a.dump()) << team;
}

TEST(LedgerIdentity, SimulateAndServeDryRunGiveTheSameLedgerBackfill) {
  expect_same_ledger("backfill");
}

TEST(LedgerIdentity, SimulateAndServeDryRunGiveTheSameLedgerSjf) {
  expect_same_ledger("sjf");
}

TEST(LedgerIdentity, SimulateAndServeDryRunGiveTheSameLedgerFifo) {
  expect_same_ledger("fifo");
}

}  // namespace
}  // namespace frugal
