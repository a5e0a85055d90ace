// Jobs run (one of them requeued) on the real cluster; `frugal import slurm` of its jobcomp
// records, the GRES log and `sinfo --json` gives one trace job each, with the GPUs they held
// and the times the records give.
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "drivers/command.h"
#include "drivers/slurm_jobcomp.h"
#include "slurm/live_util.h"

namespace frugal {
namespace {

// The rows of a CSV without quoted cells, by the value of column `key`.
std::map<std::string, std::map<std::string, std::string>> csv_rows(const std::string& text,
                                                                   const std::string& key) {
  auto split = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) out.push_back(cell);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
  };
  std::stringstream in(text);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::map<std::string, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows[row[key]] = row;
  }
  return rows;
}

TEST(SlurmLive, ImportedJobcompGivesTheJobsAsRun) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("import");
  struct Want {
    std::string node, gres, body;
  };
  // The second job runs long the first time (it is requeued while it runs), briefly after.
  const std::vector<Want> want = {
      {"gpu3", "gpu:h100:2", "sleep 3"},
      {"gpu1", "gpu:a100:1",
       "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then sleep 60; else sleep 2; fi"}};
  std::vector<int64_t> ids;
  for (const Want& w : want) {
    SlurmSubmit s;
    s.name = "frugal-import";
    s.workdir = dir;
    s.script = live::script(w.body);
    auto id = c.submit(s);
    ASSERT_TRUE(id.ok()) << id.error().message;
    SlurmUpdate u;
    u.nodelist = w.node;
    u.gres = w.gres;
    ASSERT_TRUE(c.update(id.value(), u).ok());
    ASSERT_TRUE(c.release(id.value()).ok());
    ids.push_back(id.value());
  }
  std::string gres_log;
  for (int64_t id : ids) {
    auto r = live::wait_job(
        c, id, [](const SlurmJob& j) { return j.running(); }, 30);
    ASSERT_TRUE(r.ok()) << r.error().message;
    gres_log += gres_log_line(r.value()) + "\n";
  }
  auto first = c.job(ids[1]);
  ASSERT_TRUE(first.ok()) << first.error().message;
  // Its first run lasts some whole seconds before the requeue (records have 1 s resolution;
  // a run requeued within the second it started is recorded with no length, as no run).
  std::this_thread::sleep_for(std::chrono::seconds(3));
  ASSERT_TRUE(c.requeue(ids[1]).ok());
  auto again = live::wait_job(
      c, ids[1],
      [&](const SlurmJob& j) { return j.running() && j.start_time != first.value().start_time; },
      60);
  ASSERT_TRUE(again.ok()) << again.error().message;
  gres_log += gres_log_line(again.value()) + "\n";

  // Their records (three runs), once all ended.
  const std::string jobcomp = "/var/log/frugal-slurm/jobcomp.log";
  std::vector<JobcompRecord> mine;
  ASSERT_TRUE(live::wait_until(
      [&] {
        auto all = parse_jobcomp(live::read_text(jobcomp), jobcomp);
        if (!all.ok()) return false;
        mine.clear();
        for (const auto& r : all.value())
          if (r.job_id == ids[0] || r.job_id == ids[1]) mine.push_back(r);
        return mine.size() == 3;
      },
      40));
  std::string text = live::read_text(jobcomp), filtered;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    for (int64_t id : ids)
      if (line.rfind("JobId=" + std::to_string(id) + " ", 0) == 0) filtered += line + "\n";
  }
  std::ofstream(dir + "/jobcomp.log") << filtered;
  std::ofstream(dir + "/gres.log") << gres_log;
  auto nodes = run_checked({"sinfo", "--json"});
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  std::ofstream(dir + "/nodes.json") << nodes.value();

  std::tm tm{};
  const std::time_t now = std::time(nullptr);
  localtime_r(&now, &tm);
  auto out = run_checked({FRUGAL_BINARY, "import", "slurm", "--jobcomp", dir + "/jobcomp.log",
                          "--gres-log", dir + "/gres.log", "--sinfo", dir + "/nodes.json",
                          "--utc-offset", std::to_string(tm.tm_gmtoff), "--reference-model", "none",
                          "--out", dir + "/trace.csv"});
  ASSERT_TRUE(out.ok()) << out.error().message;
  auto rows = csv_rows(live::read_text(dir + "/trace.csv"), "id");
  ASSERT_EQ(rows.size(), 2u) << live::read_text(dir + "/trace.csv");
  // The records' runs per job (jobcomp times are local: moved to UTC as --utc-offset does).
  std::map<int64_t, std::vector<const JobcompRecord*>> runs;
  for (const auto& r : mine)
    if (r.ran()) runs[r.job_id].push_back(&r);
  ASSERT_EQ(runs[ids[0]].size(), 1u);
  ASSERT_EQ(runs[ids[1]].size(), 2u);
  const auto& a = rows[std::to_string(ids[0])];
  const auto& b = rows[std::to_string(ids[1])];
  EXPECT_EQ(a.at("gpus"), "2");
  EXPECT_EQ(b.at("gpus"), "1");
  EXPECT_EQ(a.at("restarts"), "0");
  EXPECT_EQ(b.at("restarts"), "1");
  EXPECT_EQ(a.at("name"), "frugal-import");
  double ran_b = 0;
  for (const JobcompRecord* r : runs[ids[1]])
    ran_b += static_cast<double>(r->end_unix - r->start_unix);
  const JobcompRecord& ra = *runs[ids[0]][0];
  EXPECT_DOUBLE_EQ(std::stod(a.at("duration")), static_cast<double>(ra.end_unix - ra.start_unix));
  EXPECT_DOUBLE_EQ(std::stod(b.at("duration")), ran_b);
  EXPECT_DOUBLE_EQ(std::stod(b.at("end")) - std::stod(b.at("first_start")),
                   static_cast<double>(runs[ids[1]][1]->end_unix - runs[ids[1]][0]->start_unix));
  // Partition gpu holds A100 and H100 nodes.
  EXPECT_EQ(a.at("allowed_models"), "A100-80GB|H100");
}

}  // namespace
}  // namespace frugal
