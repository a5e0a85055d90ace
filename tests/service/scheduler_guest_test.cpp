// Sharing measured idle in the service (`sharing:`, policy/lend_idle.h) on the ManualClock,
// with per-process telemetry scripted as NVML reports it: a waiting opportunistic job starts
// as a guest beside a consenting job measured at 30 %, its MPS share the measured headroom;
// it is recalled when that job's load rises to 90 %; the ledger charges the guest its share
// and lowers the host's idle-allocated figure by as much; after a restart a guest is
// stopped and requeued, never adopted.

#include <gtest/gtest.h>

#include "scheduler_fixture.h"

namespace frugal {
namespace {
using namespace sched_test;  // NOLINT(google-build-using-namespace)

void share_idle(Fixture& f) {
  f.shared->processes = true;
  f.configure = [](ServiceConfig& c) {
    c.sharing.enabled = true;
    c.sharing.window_minutes = 0.005;  // 0.3 s of samples, every 0.05 s
  };
}

// The host: both GPUs of node "n", consenting, its processes at `util`.
int64_t start_host(Fixture& f, Scheduler& s, double util) {
  JobRequest r;
  r.command = "train";
  r.gpus = 2;
  r.lend_idle = true;
  const int64_t id = s.submit(kAlpha, r).get().body["id"];
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    f.shared->job_util[std::to_string(id)] = util;
  }
  wait_state(f, s, id, "running");
  return id;
}

int64_t submit_guest(Fixture& f, Scheduler& s, double util) {
  JobRequest r;
  r.command = "eval";
  r.gpus = 1;
  r.gpu_milli = 500;
  r.opportunistic = true;
  const auto reply = s.submit(kAlpha, r).get();
  EXPECT_EQ(reply.status, 201) << reply.body;
  const int64_t id = reply.body["id"];
  std::lock_guard<std::mutex> lock(f.shared->mu);
  f.shared->job_util[std::to_string(id)] = util;
  return id;
}

LaunchSpec last_spec_of(Fixture& f, int64_t id) {
  std::lock_guard<std::mutex> lock(f.shared->mu);
  for (auto it = f.shared->specs.rbegin(); it != f.shared->specs.rend(); ++it)
    if (it->job_id == std::to_string(id)) return *it;
  return {};
}

TEST(SchedulerGuests, AGuestUsesMeasuredIdleAndLeavesWhenTheHostsLoadReturns) {
  Fixture f;
  share_idle(f);
  auto s = f.make();
  const int64_t host = start_host(f, *s, 0.30);
  const int64_t guest = submit_guest(f, *s, 0.35);
  pass(f, *s, 0.1);
  EXPECT_EQ(job(*s, guest)["state"], "queued");  // the host's window is not full yet
  wait_state(f, *s, guest, "running");
  const nlohmann::json g = job(*s, guest);
  EXPECT_EQ(g["guest_of"], host) << g;
  EXPECT_NE(g["reason"].get<std::string>().find("measured at most 30 % busy"), std::string::npos)
      << g;
  const LaunchSpec spec = last_spec_of(f, guest);
  ASSERT_EQ(spec.slots.size(), 1u);
  EXPECT_EQ(spec.slots[0].node, "n");
  EXPECT_EQ(spec.slots[0].milli, 700);  // the measured headroom: 1 − 30 % (the MPS limit)
  EXPECT_EQ(env_of(spec, "FRUGAL_GUEST_OF"), std::to_string(host));
  // Memory: no more than its own half of the card, within what the host leaves under 80 %.
  EXPECT_GT(spec.gpu_memory_limit_mib, 0);
  EXPECT_LE(spec.gpu_memory_limit_mib, 24576 / 2);  // the catalog's L4
  // The shared card reads 65 %, all of it on the guest's process (as NVML gave it on an H200):
  // the host keeps what it used alone (30 %), the guest has the rest.
  pass(f, *s, 0.2);
  EXPECT_NEAR(job(*s, host)["utilization"].get<double>(), 0.30, 1e-9);
  EXPECT_NEAR(job(*s, guest)["utilization"].get<double>(), 0.5, 1e-9);  // 35 % of a 70 % share

  // Priced while both run: the card is paid once (team GPU-hours are the host's two cards),
  // and the idle the guest used is not the host's waste.
  const nlohmann::json ledger = s->ledger(kAdmin).get().body;
  const nlohmann::json& team = ledger["by_team"]["alpha"];
  const double now = ledger["as_of"];
  const double t_host = now - job(*s, host)["started_at"].get<double>();
  const double t_guest = now - job(*s, guest)["started_at"].get<double>();
  EXPECT_NEAR(team["gpu_hours"].get<double>(), 2 * t_host / 3600, 1e-9);
  const double rate = team["rental_usd"].get<double>() / team["gpu_hours"].get<double>();
  // Host 2·T·(1 − 0.3) less the guest's 0.7·Tg; guest 0.7·Tg·(1 − 0.5).
  const double idle = rate * (2 * t_host * 0.7 - 0.7 * t_guest + 0.7 * t_guest * 0.5) / 3600;
  EXPECT_NEAR(team["waste"]["idle_allocated_usd"].get<double>(), idle, idle * 0.01) << team;

  // The host's load returns: the guest is recalled (requeued), and stays queued while the
  // host is busy.
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    f.shared->job_util[std::to_string(host)] = 0.90;
  }
  ASSERT_TRUE(eventually(f, *s, [&] { return job(*s, guest)["state"] != "running"; }));
  const nlohmann::json recalled = job(*s, guest);
  // Judged on what the host's cards do: the shared one at 100 % (host 90 % + guest 35 %), the
  // other at 90 %.
  EXPECT_NE(recalled["reason"].get<std::string>().find("needs its GPU back (95 % busy)"),
            std::string::npos)
      << recalled;
  pass(f, *s, 0.5);
  EXPECT_NE(job(*s, guest)["state"], "running");
  // The host ends: the guest runs on a card of its own.
  ScriptedDriver(f.shared).finish(handle(host, 0), 0);
  wait_state(f, *s, guest, "running");
  EXPECT_FALSE(job(*s, guest).contains("guest_of"));
  EXPECT_EQ(last_spec_of(f, guest).slots[0].milli, 500);
}

TEST(SchedulerGuests, NothingIsLentWithoutConsentOrWithoutTheSharingConfig) {
  for (const bool consent : {false, true}) {
    Fixture f;
    f.shared->processes = true;
    if (!consent) share_idle(f);  // sharing on, but the host does not lend
    auto s = f.make();
    JobRequest r;
    r.command = "train";
    r.gpus = 2;
    r.lend_idle = consent;  // consenting, but no `sharing:` in the config
    const int64_t host = s->submit(kAlpha, r).get().body["id"];
    wait_state(f, *s, host, "running");
    const int64_t guest = submit_guest(f, *s, 0.35);
    pass(f, *s, 1.0);
    EXPECT_EQ(job(*s, guest)["state"], "queued") << "consent " << consent;
  }
}

TEST(SchedulerGuests, AfterARestartAGuestIsStoppedAndRequeuedNotAdopted) {
  Fixture f;
  share_idle(f);
  int64_t host = 0, guest = 0;
  {
    auto s = f.make();
    host = start_host(f, *s, 0.30);
    guest = submit_guest(f, *s, 0.35);
    wait_state(f, *s, guest, "running");
    s->stop();
  }
  auto s = f.make();
  EXPECT_EQ(job(*s, host)["state"], "running");
  EXPECT_EQ(job(*s, host)["restart_count"], 0);
  const nlohmann::json g = job(*s, guest);
  EXPECT_NE(g["state"], "running");
  EXPECT_NE(g["reason"].get<std::string>().find("a guest on another job's idle GPU"),
            std::string::npos)
      << g;
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    EXPECT_EQ(f.shared->stopped.back(), handle(guest, 0));
  }
  // Its host still idles: once measured for a window again, it is lent again.
  wait_state(f, *s, guest, "running");
  EXPECT_EQ(job(*s, guest)["guest_of"], host);
}

// Fractional jobs without a lending host: a card they share is split by their shares, and
// each is measured on its own share (what the ledger prices). Two half-card jobs on a card
// busy 60 % in all (its per-process reading all on one of them, as on an H200): 0.6 each.
TEST(SchedulerGuests, FractionalCoTenantsSplitTheirCardByShare) {
  Fixture f;
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    f.shared->processes = true;
  }
  auto s = f.make();
  std::vector<int64_t> ids;
  for (const double util : {0.2, 0.4}) {
    JobRequest r;
    r.command = "eval";
    r.gpus = 1;
    r.gpu_milli = 500;
    const int64_t id = s->submit(kAlpha, r).get().body["id"];
    {
      std::lock_guard<std::mutex> lock(f.shared->mu);
      f.shared->job_util[std::to_string(id)] = util;
    }
    wait_state(f, *s, id, "running");
    ids.push_back(id);
  }
  ASSERT_EQ(last_spec_of(f, ids[0]).slots.at(0).gpu, last_spec_of(f, ids[1]).slots.at(0).gpu)
      << "the policy packs two halves on one card";
  pass(f, *s, 0.2);
  // The second shared the card from its first sample; the first was alone before (20 % of
  // the card: 0.4 of its share), so its mean lies between.
  EXPECT_NEAR(job(*s, ids[1])["utilization"].get<double>(), 0.6, 1e-9);
  const double first = job(*s, ids[0])["utilization"];
  EXPECT_GE(first, 0.4 - 1e-9);
  EXPECT_LE(first, 0.6 + 1e-9);
}

}  // namespace
}  // namespace frugal
