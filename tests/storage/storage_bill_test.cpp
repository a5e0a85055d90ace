// The bill of real bytes (src/storage/storage_bill.h): exact GB-hours per tier from the
// records, crash safety of the accounting, transfers, waste categories, attribution, YAML.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "storage/storage_bill.h"
#include "storage/storage_yaml.h"
#include "storage_fixture.h"

namespace frugal::storage::testing {
namespace {

constexpr double kT0 = 2e9;  // after the wall clock: copies (new mtimes) count as old
constexpr double kGbHour = 1e9 * 3600.0;

class StorageBillTest : public StorageTest {
 protected:
  // A complete checkpoint folder with exactly these contents (no job name mixed in).
  std::string make_exact(const std::string& job, const std::string& name,
                         const std::string& content, double completed_at) {
    const std::string dir = job_dir(job) + "/" + name;
    write_file(dir + "/model.bin", content);
    write_file(dir + "/" + config.marker, "");
    set_mtime(dir + "/" + config.marker, completed_at);
    return dir;
  }

  static double waste(const StorageBill& b, const std::string& team, const std::string& c) {
    const auto t = b.teams.find(team);
    if (t == b.teams.end()) return 0;
    const auto w = t->second.waste_usd.find(c);
    return w == t->second.waste_usd.end() ? 0 : w->second;
  }

  static double gb_hours(const StorageBill& b, const std::string& team, const std::string& tier) {
    const auto t = b.teams.find(team);
    if (t == b.teams.end()) return 0;
    const auto x = t->second.tiers.find(tier);
    return x == t->second.tiers.end() ? 0 : x->second.gb_hours;
  }

  // USD of `byte_seconds` at `usd_per_gb_month` (30-day month).
  static double usd(double byte_seconds, double price) {
    return byte_seconds / kGbHour * price / 720.0;
  }
};

TEST_F(StorageBillTest, HotHourThenWarmTwoHoursThenDeletedBillsExactly) {
  config.default_policy = LifecyclePolicy{0, -1, -1, 0, 1};  // delete once older than 1 s
  auto m = open_manager();
  ASSERT_TRUE(m);
  make_checkpoint("j", "step-1", true, kT0 - 10);
  auto recs = m->scan_checkpoints("j", "nlp", job_dir("j"), kT0);
  ASSERT_TRUE(recs.ok());
  const auto bytes = static_cast<double>(recs.value()[0].bytes);
  ASSERT_GT(bytes, 0);
  ASSERT_TRUE(m->move_checkpoint(recs.value()[0].id, Tier::warm, kT0 + 3600).ok());
  auto report = m->run_lifecycle(kT0 + 3 * 3600, [](const std::string&) { return false; });
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report.value().done.size(), 1u);
  EXPECT_TRUE(m->checkpoints("j").empty());
  EXPECT_TRUE(temporaries(root).empty());
  EXPECT_FALSE(path_exists(root + "/warm/checkpoints/j/step-1"));

  // Long after the deletion: nothing more accrues.
  auto b = m->bill(kT0 + 100 * 3600);
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(gb_hours(b.value(), "nlp", "hot"), bytes * 3600 / kGbHour);
  EXPECT_DOUBLE_EQ(gb_hours(b.value(), "nlp", "warm"), 2 * bytes * 3600 / kGbHour);
  EXPECT_DOUBLE_EQ(gb_hours(b.value(), "nlp", "cold"), 0);
  const double want = usd(bytes * 3600, 0.10) + usd(2 * bytes * 3600, 0.03);
  EXPECT_NEAR(b.value().teams.at("nlp").storage_usd, want, want * 1e-12);
  EXPECT_NEAR(b.value().jobs.at("j").storage_usd, want, want * 1e-12);
  // A reader (no writer lock) computes the same bill.
  auto mid = StorageManager::open(config, db_path, {}, Access::reader);
  ASSERT_TRUE(mid.ok());
  EXPECT_DOUBLE_EQ(gb_hours(mid.value()->bill(kT0 + 100 * 3600).value(), "nlp", "warm"),
                   2 * bytes * 3600 / kGbHour);
}

TEST_F(StorageBillTest, OpenIntervalsAreBilledAtReadTimeWithoutWriting) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  make_checkpoint("j", "step-1", true, kT0 - 10);
  auto recs = m->scan_checkpoints("j", "nlp", job_dir("j"), kT0);
  ASSERT_TRUE(recs.ok());
  const auto bytes = static_cast<double>(recs.value()[0].bytes);
  auto r = StorageManager::open(config, db_path, {}, Access::reader);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(gb_hours(r.value()->bill(kT0 + 1800).value(), "nlp", "hot"),
                   bytes * 1800 / kGbHour);
  EXPECT_DOUBLE_EQ(gb_hours(r.value()->bill(kT0 + 7200).value(), "nlp", "hot"),
                   bytes * 7200 / kGbHour);
  EXPECT_FALSE(r.value()->bill_tick(kT0).ok());  // readers cannot tick
}

TEST_F(StorageBillTest, KillAtEachMoveStepNeitherLosesNorDoubleCounts) {
  tier("hot").transfer_usd_per_gb = 1;
  for (int k = 0; k < kMoveSteps; ++k) {
    const auto kill_at = static_cast<MoveStep>(k);
    SCOPED_TRACE(move_step_name(kill_at));
    const std::string job = fmt::format("job{}", k), team = fmt::format("team{}", k);
    make_checkpoint(job, "step-1", true, kT0 - 10);
    int64_t id = 0;
    double bytes = 0;
    {
      auto m = open_manager();
      ASSERT_TRUE(m);
      auto recs = m->scan_checkpoints(job, team, job_dir(job), kT0);
      ASSERT_TRUE(recs.ok());
      id = recs.value()[0].id;
      bytes = static_cast<double>(recs.value()[0].bytes);
    }
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto m = StorageManager::open(config, db_path, [kill_at](MoveStep s) {
        if (s == kill_at) ::raise(SIGKILL);
      });
      if (!m.ok()) ::_exit(3);
      (void)m.value()->move_checkpoint(id, Tier::warm, kT0 + 3600);
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
    auto m = open_manager();  // recovers
    ASSERT_TRUE(m);
    const bool moved = m->checkpoints(job).at(0).tier == Tier::warm;
    EXPECT_EQ(moved, k >= static_cast<int>(MoveStep::delete_source));
    auto b = m->bill(kT0 + 7200);
    ASSERT_TRUE(b.ok());
    const double hot = gb_hours(b.value(), team, "hot"), warm = gb_hours(b.value(), team, "warm");
    // Every byte-second counted exactly once, on the tier the record says.
    EXPECT_DOUBLE_EQ(hot + warm, bytes * 7200 / kGbHour);
    EXPECT_DOUBLE_EQ(hot, bytes * (moved ? 3600 : 7200) / kGbHour);
    EXPECT_DOUBLE_EQ(b.value().teams.at(team).transfer_gb, moved ? bytes / 1e9 : 0.0);
  }
}

TEST_F(StorageBillTest, TransfersArePricedAtTheSourceTier) {
  tier("hot").transfer_usd_per_gb = 0;
  tier("warm").transfer_usd_per_gb = 0.1;
  tier("cold").transfer_usd_per_gb = 0.5;
  auto m = open_manager();
  ASSERT_TRUE(m);
  make_checkpoint("j", "step-1", true, kT0 - 10);
  auto recs = m->scan_checkpoints("j", "nlp", job_dir("j"), kT0);
  ASSERT_TRUE(recs.ok());
  const auto cp = static_cast<double>(recs.value()[0].bytes);
  ASSERT_TRUE(m->move_checkpoint(recs.value()[0].id, Tier::cold, kT0 + 10).ok());  // hot: free
  ASSERT_TRUE(m->restore_newest("j", kT0 + 20).ok());                              // cold: 0.5
  write_file(root + "/src/d/a.bin", std::string(5000, 'a'));
  ASSERT_TRUE(m->add_dataset("d@1", root + "/src/d", "nlp", kT0).ok());
  auto st = m->stage("d@1", "node-0", "j", 0, 1, kT0 + 30);  // warm -> hot: 0.1
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(m->stage("d@1", "node-0", "j", 0, 1, kT0 + 40).value().reused);  // no transfer
  auto b = m->bill(kT0 + 50);
  ASSERT_TRUE(b.ok());
  const TeamBill& t = b.value().teams.at("nlp");
  EXPECT_DOUBLE_EQ(t.transfer_gb, (2 * cp + 5000) / 1e9);
  const double want = cp / 1e9 * 0.5 + 5000 / 1e9 * 0.1;
  EXPECT_NEAR(t.transfer_usd, want, want * 1e-12);
  EXPECT_NEAR(b.value().jobs.at("j").transfer_usd, want, want * 1e-12);
}

TEST_F(StorageBillTest, HotUnusedOnlyOnceUnusedLongEnough) {
  config.hot_unused_after_s = 1000;
  auto m = open_manager();
  ASSERT_TRUE(m);
  make_exact("j", "step-1", std::string(3000, 'x'), kT0);
  ASSERT_TRUE(m->scan_checkpoints("j", "nlp", job_dir("j"), kT0).ok());
  ASSERT_TRUE(m->bill_tick(kT0).ok());  // remembers the time
  ASSERT_TRUE(m->bill_tick(kT0 + 500).ok());
  EXPECT_EQ(waste(m->bill(kT0 + 500).value(), "nlp", "hot_unused"), 0);
  ASSERT_TRUE(m->bill_tick(kT0 + 1500).ok());  // unused for 1500 s > 1000 s: [500, 1500)
  auto b = m->bill(kT0 + 1500);
  ASSERT_TRUE(b.ok());
  const double bytes = 3000 + 0;  // the marker is empty
  EXPECT_NEAR(waste(b.value(), "nlp", "hot_unused"), usd(bytes * 1000, 0.10 - 0.03), 1e-18);
  EXPECT_GT(waste(b.value(), "nlp", "hot_unused"), 0);
  EXPECT_EQ(waste(b.value(), "nlp", "past_retention"), 0);
  EXPECT_EQ(waste(b.value(), "nlp", "duplicate_stored"), 0);
  EXPECT_EQ(b.value().last_tick, kT0 + 1500);
  ASSERT_TRUE(m->bill_tick(kT0 + 1400).ok());  // backwards: nothing
  EXPECT_EQ(m->bill(kT0 + 1500).value().last_tick, kT0 + 1500);
}

TEST_F(StorageBillTest, PastRetentionOnlyWhileThePlanWouldDelete) {
  config.hot_unused_after_s = 1e9;
  config.default_policy = LifecyclePolicy{2, -1, -1, 1, 0};  // keep one per job
  auto m = open_manager();
  ASSERT_TRUE(m);
  make_exact("j", "step-1", std::string(1000, 'a'), kT0);
  ASSERT_TRUE(m->scan_checkpoints("j", "nlp", job_dir("j"), kT0).ok());
  ASSERT_TRUE(m->bill_tick(kT0).ok());
  ASSERT_TRUE(m->bill_tick(kT0 + 100).ok());  // one checkpoint: nothing to delete
  EXPECT_EQ(waste(m->bill(kT0 + 100).value(), "nlp", "past_retention"), 0);
  make_exact("j", "step-2", std::string(2000, 'b'), kT0 + 100);
  ASSERT_TRUE(m->scan_checkpoints("j", "nlp", job_dir("j"), kT0 + 100).ok());
  ASSERT_TRUE(m->bill_tick(kT0 + 400).ok());  // step-1 is beyond retain_count 1 for 300 s
  auto b = m->bill(kT0 + 400);
  EXPECT_NEAR(waste(b.value(), "nlp", "past_retention"), usd(1000.0 * 300, 0.10), 1e-18);
  EXPECT_GT(waste(b.value(), "nlp", "past_retention"), 0);
  EXPECT_EQ(waste(b.value(), "nlp", "duplicate_stored"), 0);
  EXPECT_EQ(waste(b.value(), "nlp", "hot_unused"), 0);
}

TEST_F(StorageBillTest, DuplicateStoredOnlyBeyondTheFirstCopy) {
  config.hot_unused_after_s = 1e9;
  auto m = open_manager();
  ASSERT_TRUE(m);
  make_exact("a", "step-1", std::string(4000, 'z'), kT0);
  ASSERT_TRUE(m->scan_checkpoints("a", "nlp", job_dir("a"), kT0).ok());
  ASSERT_TRUE(m->bill_tick(kT0).ok());
  ASSERT_TRUE(m->bill_tick(kT0 + 100).ok());
  EXPECT_EQ(waste(m->bill(kT0 + 100).value(), "vision", "duplicate_stored"), 0);
  make_exact("b", "step-1", std::string(4000, 'z'), kT0 + 100);  // same bytes, another team
  ASSERT_TRUE(m->scan_checkpoints("b", "vision", job_dir("b"), kT0 + 100).ok());
  ASSERT_TRUE(m->bill_tick(kT0 + 300).ok());
  auto b = m->bill(kT0 + 300);
  EXPECT_NEAR(waste(b.value(), "vision", "duplicate_stored"), usd(4000.0 * 200, 0.10), 1e-18);
  EXPECT_GT(waste(b.value(), "vision", "duplicate_stored"), 0);
  EXPECT_EQ(waste(b.value(), "nlp", "duplicate_stored"), 0);  // the first copy
  EXPECT_EQ(waste(b.value(), "vision", "past_retention"), 0);
}

TEST_F(StorageBillTest, TwoTeamsSharingADatasetSumToTheTotal) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  write_file(root + "/src/d/shared.bin", std::string(6000, 's'));
  write_file(root + "/src/d/only-a.bin", std::string(1000, 'a'));
  write_file(root + "/src/e/shared.bin", std::string(6000, 's'));
  write_file(root + "/src/e/only-b.bin", std::string(3000, 'b'));
  ASSERT_TRUE(m->add_dataset("d@1", root + "/src/d", "nlp", kT0 + 100).ok());
  ASSERT_TRUE(m->add_dataset("e@1", root + "/src/e", "vision", kT0 + 150).ok());
  make_checkpoint("vjob", "step-1", true, kT0);
  auto recs = m->scan_checkpoints("vjob", "vision", job_dir("vjob"), kT0 + 120);
  ASSERT_TRUE(recs.ok());
  const auto cp = static_cast<double>(recs.value()[0].bytes);
  ASSERT_TRUE(m->scan_checkpoints("njob", "nlp", job_dir("njob"), kT0).ok());
  ASSERT_TRUE(m->stage("d@1", "node-0", "njob", 0, 1, kT0 + 200).ok());
  const double now = kT0 + 10000;
  auto b = m->bill(now);
  ASSERT_TRUE(b.ok());
  const StorageBill& bill = b.value();
  // The shared object: nlp alone for [100, 150), then split evenly.
  const double nlp_warm = 6000.0 * 50 + 6000.0 / 2 * (now - kT0 - 150) + 1000.0 * (now - kT0 - 100);
  const double vision_warm = 6000.0 / 2 * (now - kT0 - 150) + 3000.0 * (now - kT0 - 150);
  EXPECT_NEAR(gb_hours(bill, "nlp", "warm"), nlp_warm / kGbHour, 1e-15);
  EXPECT_NEAR(gb_hours(bill, "vision", "warm"), vision_warm / kGbHour, 1e-15);
  EXPECT_NEAR(gb_hours(bill, "nlp", "hot"), 7000.0 * (now - kT0 - 200) / kGbHour, 1e-15);
  EXPECT_NEAR(gb_hours(bill, "vision", "hot"), cp * (now - kT0 - 120) / kGbHour, 1e-15);
  // Every dollar once: Σ teams == total, and the total is what the bytes cost.
  double sum = 0, sum_storage = 0;
  for (const auto& [team, t] : bill.teams) {
    sum += t.total_usd;
    sum_storage += t.storage_usd;
  }
  EXPECT_NEAR(sum, bill.total.total_usd, 1e-15);
  EXPECT_NEAR(sum_storage, bill.total.storage_usd, 1e-15);
  const double all = usd(nlp_warm + vision_warm, 0.03) +
                     usd(7000.0 * (now - kT0 - 200) + cp * (now - kT0 - 120), 0.10);
  EXPECT_NEAR(bill.total.storage_usd, all, all * 1e-12);
  // Dedup: logical vs the share stored, and what content addressing avoids.
  EXPECT_EQ(bill.teams.at("nlp").dataset_logical_bytes, 7000u);
  EXPECT_DOUBLE_EQ(bill.teams.at("nlp").dataset_stored_bytes, 4000.0);
  EXPECT_DOUBLE_EQ(bill.teams.at("vision").dataset_stored_bytes, 6000.0);
  EXPECT_NEAR(bill.total.cas_avoided_usd_per_month, 6000.0 / 1e9 * 0.03, 1e-18);
  // Staged copy billed to the job that staged it and its team.
  EXPECT_EQ(bill.jobs.at("njob").team, "nlp");
  EXPECT_GT(bill.jobs.at("njob").storage_usd, 0);
  // JSON for one team holds only that team.
  const auto j = nlohmann::json::parse(bill_json(bill, "nlp"));
  EXPECT_EQ(j["teams"].size(), 1u);
  EXPECT_TRUE(j["teams"].contains("nlp"));
  EXPECT_FALSE(j["jobs"].contains("vjob"));
  EXPECT_NEAR(j["total"]["total_usd"].get<double>(), bill.teams.at("nlp").total_usd, 1e-18);
}

TEST_F(StorageBillTest, RemovingADatasetMovesItsShareAndClosesStagedCopies) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  write_file(root + "/src/d/x.bin", std::string(2000, 'x'));
  ASSERT_TRUE(m->add_dataset("d@1", root + "/src/d", "nlp", kT0).ok());
  ASSERT_TRUE(m->add_dataset("d@1", root + "/src/d", "vision", kT0 + 100).ok());  // shares it
  auto b = m->bill(kT0 + 300).value();
  EXPECT_NEAR(gb_hours(b, "nlp", "warm"), (2000.0 * 100 + 1000.0 * 200) / kGbHour, 1e-15);
  EXPECT_NEAR(gb_hours(b, "vision", "warm"), 1000.0 * 200 / kGbHour, 1e-15);
  ASSERT_TRUE(m->stage("d@1", "n", "job", 0, 1, kT0 + 300).ok());
  ASSERT_TRUE(m->release("job", kT0 + 350).ok());
  ASSERT_TRUE(m->remove_dataset("d@1", kT0 + 400).ok());
  auto after = m->bill(kT0 + 10000).value();
  EXPECT_NEAR(gb_hours(after, "nlp", "hot"), 2000.0 * 100 / kGbHour, 1e-15);  // staged closed
  double sum = 0;
  for (const auto& [team, t] : after.teams) sum += t.total_usd;
  EXPECT_NEAR(sum, after.total.total_usd, 1e-15);
}

TEST_F(StorageBillTest, InterruptedDeletionIsRolledBackOrSwept) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  const std::string a = make_checkpoint("j", "step-1", true, kT0);
  const std::string b = make_checkpoint("j", "step-2", true, kT0 + 1);
  ASSERT_TRUE(m->scan_checkpoints("j", "nlp", job_dir("j"), kT0).ok());
  m.reset();
  // Killed after the rename, before the record went: the folder comes back, still recorded.
  std::filesystem::rename(a, a + std::string(kTmpInfix) + "delete");
  // Killed after the record went, before the bytes: an untracked temporary, swept.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
    const std::string sql = fmt::format("DELETE FROM storage_filesets WHERE path='{}'", b);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  std::filesystem::rename(b, b + std::string(kTmpInfix) + "delete");
  m = open_manager();
  ASSERT_TRUE(m);
  EXPECT_TRUE(path_exists(a));
  EXPECT_EQ(m->checkpoints("j").size(), 1u);
  EXPECT_FALSE(path_exists(b));
  EXPECT_TRUE(temporaries(root).empty());
}

TEST_F(StorageBillTest, SchemaOneDatabaseIsMigratedAtTheMigrationTime) {
  {
    auto m = open_manager();
    ASSERT_TRUE(m);
    make_checkpoint("j", "step-1", true, kT0);
    ASSERT_TRUE(m->scan_checkpoints("j", "nlp", job_dir("j"), kT0).ok());
  }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
    for (const char* sql :
         {"ALTER TABLE storage_filesets DROP COLUMN tier_since", "DROP TABLE storage_usage",
          "DROP TABLE storage_transfers", "DROP TABLE storage_waste",
          "UPDATE storage_meta SET value='1' WHERE key='schema_version'"})
      ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(db);
  }
  const double before = static_cast<double>(::time(nullptr));
  auto m = open_manager();
  ASSERT_TRUE(m);
  // Billed from the migration, never from 1970: nothing before it, an hour after it.
  auto b = m->bill(before - 1).value();
  EXPECT_EQ(gb_hours(b, "nlp", "hot"), 0);
  EXPECT_GT(m->bill(before + 3600).value().teams.at("nlp").tiers.at("hot").gb_hours, 0);
  EXPECT_LT(m->bill(before + 3600).value().teams.at("nlp").tiers.at("hot").gb_hours,
            1.0);  // not 55 years' worth
}

TEST_F(StorageBillTest, CliBillPrintsTheTeamsAndJson) {
  write_file(root + "/serve.yaml",
             "db: state.db\nstorage:\n  tiers:\n    hot: {path: hot, usd_per_gb_month: 0.1}\n"
             "    warm: {path: warm, usd_per_gb_month: 0.03}\n");
  write_file(root + "/src/d/a.txt", std::string(1000, 'a'));
  {
    config.tiers.pop_back();  // as the YAML: no cold tier
    auto m = open_manager();
    ASSERT_TRUE(m);
    ASSERT_TRUE(m->add_dataset("d@1", root + "/src/d", "nlp", kT0).ok());
  }
  const auto run = [this](const std::string& args, std::string& out) {
    const std::string cmd = fmt::format("cd '{}' && '{}' storage {} >'{}/out' 2>'{}/err'", root,
                                        FRUGAL_BINARY, args, root, root);
    const int status = std::system(cmd.c_str());
    out = read_file(root + "/out");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  std::string out;
  ASSERT_EQ(run(fmt::format("--config serve.yaml bill --json --at {:.0f}", kT0 + 3600), out), 0)
      << read_file(root + "/err");
  const auto j = nlohmann::json::parse(out);
  EXPECT_DOUBLE_EQ(j["teams"]["nlp"]["tiers"]["warm"]["gb_hours"].get<double>(), 1000 / 1e9);
  EXPECT_DOUBLE_EQ(j["total"]["storage_usd"].get<double>(), 1000 / 1e9 * 0.03 / 720);
  ASSERT_EQ(run(fmt::format("--config serve.yaml bill --at {:.0f}", kT0 + 3600), out), 0);
  EXPECT_NE(out.find("nlp"), std::string::npos) << out;
  EXPECT_NE(out.find("TOTAL"), std::string::npos) << out;
}

TEST(StorageBillYaml, NegativeTransferPriceNamesTheField) {
  const YAML::Node n =
      YAML::Load("tiers: {hot: {path: /h}, warm: {path: /w, transfer_usd_per_gb: -0.5}}");
  auto c = parse_storage_yaml(n, "serve.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("storage.tiers.warm.transfer_usd_per_gb"), std::string::npos)
      << c.error().message;
  auto ok = parse_storage_yaml(
      YAML::Load("tiers: {cold: {path: /c, transfer_usd_per_gb: 0.02}}\nhot_unused_after_s: 60"),
      "serve.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_DOUBLE_EQ(ok.value().tiers.at(0).transfer_usd_per_gb, 0.02);
  EXPECT_DOUBLE_EQ(ok.value().hot_unused_after_s, 60);
  EXPECT_FALSE(parse_storage_yaml(YAML::Load("hot_unused_after_s: -1"), "s").ok());
}

}  // namespace
}  // namespace frugal::storage::testing
