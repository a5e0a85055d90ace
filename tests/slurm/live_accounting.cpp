// Jobs run on the real cluster; their jobcomp records, through `frugal attribute`, give the
// ledger the same GPU-hours as the records' times × the GPUs frugal saw them hold.
#include <nlohmann/json.hpp>

#include "drivers/command.h"
#include "drivers/slurm_jobcomp.h"
#include "slurm/live_util.h"

namespace frugal {
namespace {

TEST(SlurmLive, JobcompTotalsMatchLedger) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("jobcomp");
  struct Want {
    std::string node, gres;
    double gpus;
  };
  const std::vector<Want> want = {{"gpu3", "gpu:h100:2", 2}, {"gpu1", "shard:a100:4", 0.5}};
  std::vector<int64_t> ids;
  for (const Want& w : want) {
    SlurmSubmit s;
    s.name = "frugal-acct";
    s.workdir = dir;
    s.script = live::script("sleep 3");
    auto id = c.submit(s);
    ASSERT_TRUE(id.ok()) << id.error().message;
    SlurmUpdate u;
    u.nodelist = w.node;
    u.gres = w.gres;
    ASSERT_TRUE(c.update(id.value(), u).ok());
    ASSERT_TRUE(c.release(id.value()).ok());
    ids.push_back(id.value());
  }
  // frugal's GRES log: what each run holds, read while it runs.
  std::string gres_log;
  for (int64_t id : ids) {
    auto r = live::wait_job(
        c, id, [](const SlurmJob& j) { return j.running(); }, 30);
    ASSERT_TRUE(r.ok()) << r.error().message;
    gres_log += gres_log_line(r.value()) + "\n";
  }
  // Their records, once both finished.
  const std::string jobcomp = "/var/log/frugal-slurm/jobcomp.log";
  std::vector<JobcompRecord> mine;
  std::string lines;
  ASSERT_TRUE(live::wait_until(
      [&] {
        auto all = parse_jobcomp(live::read_text(jobcomp), jobcomp);
        if (!all.ok()) return false;
        mine.clear();
        for (const auto& r : all.value())
          if (r.job_id == ids[0] || r.job_id == ids[1]) mine.push_back(r);
        return mine.size() == 2;
      },
      20));
  std::string text = live::read_text(jobcomp), filtered;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    for (int64_t id : ids)
      if (line.rfind("JobId=" + std::to_string(id) + " ", 0) == 0) filtered += line + "\n";
  }
  {
    std::ofstream(dir + "/jobcomp.log") << filtered;
    std::ofstream(dir + "/gres.log") << gres_log;
  }
  auto nodes = run_checked({"sinfo", "--json"});
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  std::ofstream(dir + "/nodes.json") << nodes.value();

  double want_gpu_s = 0;
  int64_t t0 = mine[0].start_unix, t1 = mine[0].end_unix;
  for (const auto& r : mine) {
    want_gpu_s += (r.job_id == ids[0] ? 2.0 : 0.5) * static_cast<double>(r.end_unix - r.start_unix);
    t0 = std::min(t0, r.start_unix);
    t1 = std::max(t1, r.end_unix);
  }
  // jobcomp times are the controller's local time.
  std::tm tm{};
  const std::time_t now = std::time(nullptr);
  localtime_r(&now, &tm);
  auto out =
      run_checked({FRUGAL_BINARY, "attribute", "--slurm-jobcomp", dir + "/jobcomp.log", "--cluster",
                   dir + "/nodes.json", "--partition", "gpu", "--gres-log", dir + "/gres.log",
                   "--utc-offset-h", std::to_string(tm.tm_gmtoff / 3600.0), "--json"});
  ASSERT_TRUE(out.ok()) << out.error().message;
  const auto j = nlohmann::json::parse(out.value());
  std::printf("jobcomp GPU-seconds %.1f over %lld s; ledger: %s\n", want_gpu_s,
              static_cast<long long>(t1 - t0), j["slurm"].dump().c_str());
  EXPECT_EQ(j["slurm"]["runs"], 2);
  EXPECT_EQ(j["slurm"]["runs_without_gpus"], 0);
  EXPECT_TRUE(j["slurm"]["warnings"].empty());
  EXPECT_NEAR(j["slurm"]["gpu_hours"].get<double>(), want_gpu_s / 3600, 1e-9);
  EXPECT_NEAR(j["by_team"]["root"]["gpu_hours"].get<double>(), want_gpu_s / 3600, 1e-9);
  // Held plus idle capacity: all 24 GPUs of partition gpu over the span, each GPU-second once
  // (the cloud partition's powered-down nodes left out with --partition).
  const double span_s = static_cast<double>(t1 - t0);
  EXPECT_NEAR(j["by_region"]["slurm"]["gpu_hours"].get<double>(), 24 * span_s / 3600, 1e-9);
  const double total = j["cost"]["total_usd"].get<double>();
  const double team = j["by_team"]["root"]["total_usd"].get<double>();
  const double idle = j["cost"]["unattributed_usd"].get<double>();
  EXPECT_GT(team, 0);
  EXPECT_NEAR(total, team + idle, 1e-9);
}

}  // namespace
}  // namespace frugal
