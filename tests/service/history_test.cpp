// `frugal history export` (service/history.h): a database the service wrote on its fake
// clock, read back as a trace with what happened to each job.
#include "service/history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "../common/file_util.h"
#include "io/cluster_yaml.h"
#include "io/trace_reader.h"
#include "io/trace_writer.h"
#include "scheduler_fixture.h"
#include "service/auth.h"
#include "service/cluster_record.h"

namespace frugal {
namespace {
using namespace sched_test;  // NOLINT(google-build-using-namespace)

int64_t submit(Scheduler& s, int gpus, JobClass cls, Tier tier, double estimate_s = 0,
               double deadline = 0) {
  JobRequest r;
  r.command = "train";
  r.name = "llm, \"7b\"";  // quoted in the CSV
  r.gpus = gpus;
  r.job_class = cls;
  r.tier = tier;
  r.estimate_s = estimate_s;
  r.deadline = deadline;
  const auto reply = s.submit(kAlpha, r).get();
  EXPECT_EQ(reply.status, 201) << reply.body;
  return reply.body["id"];
}

// The service's history on node "n" (two L4s), from 2026-12-01T00:00:00Z:
//   a: 2 GPUs, finetune, important, estimate 1 h, deadline +1 d: runs 100 s, completes;
//   c: waits behind a and is cancelled (never ran);  b: 1 GPU, runs 30 s and fails;
//   d: still running when the database is read.
struct Story {
  Fixture f;
  int64_t a = 0, b = 0, c = 0, d = 0;
  std::string db;
  Story() {
    auto s = f.make();
    a = submit(*s, 2, JobClass::kFinetune, Tier::kImportant, 3600, 1796083200.0 + 86400);
    wait_state(f, *s, a, "running");
    c = submit(*s, 1, JobClass::kEval, Tier::kGeneral);
    pass(f, *s, 0.1);
    EXPECT_EQ(job(*s, c)["state"], "queued");
    EXPECT_EQ(s->act(kAlpha, c, Scheduler::Action::kCancel).get().status, 200);
    pass(f, *s, 100);
    ScriptedDriver(f.shared).finish(handle(a, 0), 0);
    wait_state(f, *s, a, "completed");
    b = submit(*s, 1, JobClass::kPretrain, Tier::kGeneral);
    wait_state(f, *s, b, "running");
    pass(f, *s, 30);
    ScriptedDriver(f.shared).finish(handle(b, 0), 1);
    wait_state(f, *s, b, "failed");
    d = submit(*s, 1, JobClass::kEval, Tier::kCore);
    wait_state(f, *s, d, "running");
    s->stop();
    db = (f.dir / "f.db").string();
  }
  double started(int64_t id) {
    auto s = f.make();
    return job(*s, id)["started_at"];
  }
};

const JobSpec* find(const History& h, int64_t id) {
  for (const JobSpec& j : h.jobs)
    if (j.id == std::to_string(id)) return &j;
  return nullptr;
}

TEST(History, ExportsWhatRanWithWhatHappened) {
  Story st;
  HistoryOptions o;
  o.reference = st.f.catalog.find("L4").value();  // the model it ran on: run times as measured
  const auto h = read_history(st.db, st.f.catalog, o);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h.value().jobs.size(), 2u);
  EXPECT_EQ(h.value().unfinished, 1);     // d
  EXPECT_EQ(h.value().never_started, 1);  // c
  EXPECT_DOUBLE_EQ(h.value().epoch_unix_s, 1796083200.0);
  const JobSpec* a = find(h.value(), st.a);
  const JobSpec* b = find(h.value(), st.b);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(h.value().jobs.front().id, std::to_string(st.a));  // submit order
  EXPECT_NEAR(a->submit, 0, 1e-9);
  EXPECT_EQ(a->gpus, 2);
  EXPECT_EQ(a->job_class, JobClass::kFinetune);
  EXPECT_EQ(a->tier, Tier::kImportant);
  EXPECT_EQ(a->team, "alpha");
  EXPECT_DOUBLE_EQ(a->estimate, 3600);
  EXPECT_NEAR(a->deadline, 86400, 1e-6);
  // 100.1 s of service time passed while it ran, in 10 ms turns (and its end's turn).
  EXPECT_GE(a->duration, 100.1 - 0.02);
  EXPECT_LT(a->duration, 100.2);
  EXPECT_NEAR(a->recorded_end - a->recorded_start, a->duration, 1e-6);  // one run segment
  EXPECT_NEAR(a->recorded_start, st.started(st.a) - 1796083200.0, 1e-6);
  EXPECT_EQ(a->recorded_restarts, 0);
  EXPECT_GE(b->duration, 30 - 0.02);  // 0.01 s steps summed
  EXPECT_LT(b->duration, 30.1);
  EXPECT_GE(b->recorded_start, a->recorded_end);
  EXPECT_LT(b->estimate, 0);  // none given
  EXPECT_EQ(b->deadline, kNever);
  EXPECT_FALSE(a->pinned);

  // On another reference model a run time is converted by the catalog's relative speed.
  HistoryOptions ref;
  ref.reference = st.f.catalog.find("A100-80GB").value();
  const auto h2 = read_history(st.db, st.f.catalog, ref);
  ASSERT_TRUE(h2.ok());
  const double speed = st.f.catalog.relative_speed(o.reference, ref.reference, JobClass::kFinetune);
  EXPECT_NEAR(find(h2.value(), st.a)->duration, a->duration * speed, 1e-6);
  EXPECT_LT(speed, 1);  // an L4 second is less than an A100's

  // --since: b only.
  HistoryOptions since = o;
  since.since_unix_s = 1796083200.0 + b->submit;
  const auto h3 = read_history(st.db, st.f.catalog, since);
  ASSERT_TRUE(h3.ok());
  ASSERT_EQ(h3.value().jobs.size(), 1u);
  EXPECT_EQ(h3.value().jobs[0].id, std::to_string(st.b));
}

// Written and read back: the same jobs (the native reader takes every column).
TEST(History, TheCsvReadsBackAsTheSameJobs) {
  Story st;
  HistoryOptions o;
  o.reference = st.f.catalog.find("L4").value();
  const auto h = read_history(st.db, st.f.catalog, o);
  ASSERT_TRUE(h.ok()) << h.error().message;
  const std::string path = (st.f.dir / "trace.csv").string();
  ASSERT_TRUE(write_history_csv(h.value().jobs, st.f.catalog, path).ok());
  TraceOptions to;
  to.catalog = &st.f.catalog;
  const auto t = read_trace(path, to);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t.value().jobs.size(), h.value().jobs.size());
  for (size_t i = 0; i < t.value().jobs.size(); ++i) {
    const JobSpec& x = h.value().jobs[i];
    const JobSpec& y = t.value().jobs[i];
    EXPECT_EQ(y.id, x.id);
    EXPECT_EQ(y.name, "llm, \"7b\"");
    EXPECT_EQ(y.team, x.team);
    EXPECT_EQ(y.tier, x.tier);
    EXPECT_EQ(y.job_class, x.job_class);
    EXPECT_EQ(y.gpus, x.gpus);
    EXPECT_DOUBLE_EQ(y.submit, x.submit);
    EXPECT_DOUBLE_EQ(y.duration, x.duration);
    EXPECT_DOUBLE_EQ(y.estimate, x.estimate);
    EXPECT_EQ(y.deadline, x.deadline);
    EXPECT_DOUBLE_EQ(y.recorded_start, x.recorded_start);
    EXPECT_DOUBLE_EQ(y.recorded_end, x.recorded_end);
    EXPECT_EQ(y.recorded_restarts, x.recorded_restarts);
  }
}

// Errors name the file and say what is wrong with it.
TEST(History, RefusesWhatIsNotAServiceDatabase) {
  const GpuCatalog catalog = load_builtin_catalog().value();
  const auto missing = read_history("/nonexistent/f.db", catalog, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/f.db: cannot open"), std::string::npos)
      << missing.error().message;
  char tmpl[] = "/tmp/frugal-history-XXXXXX";
  const std::filesystem::path dir = mkdtemp(tmpl);
  const auto make = [&](const std::string& name, const char* sql) {
    const std::string path = (dir / name).string();
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    return path;
  };
  const auto other = read_history(make("other.db", "CREATE TABLE t (x);"), catalog, {});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("other.db: not a frugal serve database"), std::string::npos)
      << other.error().message;
  const auto newer = read_history(make("newer.db", "PRAGMA user_version = 99;"), catalog, {});
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("schema version 99 is newer"), std::string::npos)
      << newer.error().message;
  const auto empty = read_history(make("empty.db", "PRAGMA user_version = 9;"), catalog, {});
  ASSERT_FALSE(empty.ok());  // the version says frugal, but there is no jobs table
  EXPECT_NE(empty.error().message.find("not a frugal serve database"), std::string::npos)
      << empty.error().message;
  std::filesystem::remove_all(dir);
}

// The cluster a Fixture service with `nodes` nodes runs on (cluster_from_inventory).
ClusterSpec live_cluster(Fixture& f) {
  ScriptedDriver d(f.shared);
  return cluster_from_inventory(d.inventory().value(), ServiceConfig{}, f.catalog).value();
}

// The same nodes: count, order, GPUs and models (names: "n" is written as group "n", node
// "n-0"; io/cluster_yaml_writer.h).
void expect_same_nodes(const ClusterSpec& got, const ClusterSpec& live) {
  ASSERT_EQ(got.nodes.size(), live.nodes.size());
  for (size_t i = 0; i < live.nodes.size(); ++i) {
    EXPECT_EQ(got.nodes[i].name, live.nodes[i].name + "-0");
    EXPECT_EQ(got.nodes[i].gpus, live.nodes[i].gpus);
    EXPECT_EQ(got.nodes[i].model, live.nodes[i].model);
  }
  EXPECT_EQ(got.total_gpus(), live.total_gpus());
}

TEST(History, TheServiceRecordsTheClusterItRunsOn) {
  Story st;
  auto specs = read_cluster_specs(st.db);
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  ASSERT_EQ(specs.value().size(), 1u);
  const ClusterSpecRow& first = specs.value()[0];
  EXPECT_DOUBLE_EQ(first.recorded_at, 1796083200.0);  // the service's clock when it started
  EXPECT_NE(first.source.find("this host's inventory (backend local)"), std::string::npos)
      << first.source;
  EXPECT_EQ(first.sha256, sha256_hex(first.spec_yaml));
  auto back = parse_cluster_yaml(first.spec_yaml, "recorded.yaml", st.f.catalog);
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << first.spec_yaml;
  expect_same_nodes(back.value(), live_cluster(st.f));
  EXPECT_EQ(back.value().nodes[0].gpus, 2);
  EXPECT_EQ(back.value().nodes[0].model, st.f.catalog.find("L4").value());

  // A restart on the same cluster records nothing; one on another cluster records it.
  st.f.clock->advance(3600);
  st.f.make();
  specs = read_cluster_specs(st.db);
  ASSERT_TRUE(specs.ok());
  EXPECT_EQ(specs.value().size(), 1u);
  st.f.shared->nodes = 2;
  st.f.clock->advance(3600);
  const double changed_at = st.f.clock->now();
  st.f.make();
  specs = read_cluster_specs(st.db);
  ASSERT_TRUE(specs.ok());
  ASSERT_EQ(specs.value().size(), 2u);
  EXPECT_DOUBLE_EQ(specs.value()[1].recorded_at, changed_at);
  back = parse_cluster_yaml(specs.value()[1].spec_yaml, "recorded.yaml", st.f.catalog);
  ASSERT_TRUE(back.ok()) << back.error().message;
  expect_same_nodes(back.value(), live_cluster(st.f));
  EXPECT_EQ(back.value().total_gpus(), 4);

  // For a history from the first job on: the latest spec, and a note that it changed.
  auto chosen = choose_cluster_spec(st.db, 1796083200.0);
  ASSERT_TRUE(chosen.ok()) << chosen.error().message;
  EXPECT_EQ(chosen.value().spec.seq, 2);
  EXPECT_NE(chosen.value().note.find("the cluster changed during this history"), std::string::npos)
      << chosen.value().note;
  EXPECT_NE(chosen.value().note.find(utc_text(changed_at)), std::string::npos);
  // From after the change: no note.
  chosen = choose_cluster_spec(st.db, changed_at + 1);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.value().note, "");
  // Jobs from before the first spec: said.
  chosen = choose_cluster_spec(st.db, 1796083200.0 - 60);
  ASSERT_TRUE(chosen.ok());
  EXPECT_NE(chosen.value().note.find("the cluster the jobs before it ran on was not recorded"),
            std::string::npos)
      << chosen.value().note;
}

struct Exit {
  int code = -1;
  std::string out, err;
};

// `frugal <args>` (through the shell, as written), its output kept in `dir`.
Exit frugal(const std::filesystem::path& dir, const std::string& args) {
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = std::string("'") + FRUGAL_BINARY + "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  return Exit{WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::slurp(out),
              testing::slurp(err)};
}

// history export --cluster-out writes the recorded spec; whatif --db replays on it without
// --cluster; compare reads it back.
TEST(History, ExportWritesTheClusterAndWhatifReplaysOnIt) {
  Story st;
  const std::string trace = (st.f.dir / "trace.csv").string();
  const std::string spec = (st.f.dir / "cluster.yaml").string();
  Exit r = frugal(st.f.dir, "history export --db '" + st.db + "' --out '" + trace +
                                "' --cluster-out '" + spec + "' --reference-model none");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("the cluster spec recorded at 2026-12-01T00:00:00Z to " + spec),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("changed"), std::string::npos) << r.err;
  EXPECT_EQ(testing::slurp(spec).rfind("# The cluster frugal serve ran on, recorded in ", 0), 0u);
  auto loaded = load_cluster_file(spec, st.f.catalog);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  expect_same_nodes(loaded.value(), live_cluster(st.f));
  // Its epoch is the trace's second 0 (the service's own was 2023-01-01): the replay prices
  // the hours the jobs ran in.
  const std::string from = "times in seconds from ";
  const size_t at = r.err.find(from);
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string epoch = r.err.substr(at + from.size(), 20);
  EXPECT_NE(testing::slurp(spec).find("epoch: \"" + epoch + "\""), std::string::npos) << epoch;
  EXPECT_NE(loaded.value().epoch_unix_s, live_cluster(st.f).epoch_unix_s);

  const std::string quick = " --reference-model none --policies fifo --format json";
  r = frugal(st.f.dir, "whatif --db '" + st.db + "'" + quick);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("cluster: the spec recorded in " + st.db + " at 2026-12-01T00:00:00Z"),
            std::string::npos)
      << r.err;
  const auto db_report = nlohmann::json::parse(r.out);
  ASSERT_EQ(db_report["runs"].size(), 2u);  // recorded, fifo
  EXPECT_EQ(db_report["runs"][0]["policy"], "recorded");
  EXPECT_LT(db_report["runs"][0]["fidelity"]["max_start_error_s"].get<double>(), 0.5);

  // The exported pair replays the same; --cluster wins over the recorded spec.
  r = frugal(st.f.dir, "whatif --trace '" + trace + "' --cluster '" + spec + "'" + quick);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto trace_report = nlohmann::json::parse(r.out);
  EXPECT_NEAR(trace_report["runs"][1]["jct_s"]["mean"].get<double>(),
              db_report["runs"][1]["jct_s"]["mean"].get<double>(), 1e-3);
  r = frugal(st.f.dir, "whatif --db '" + st.db + "' --cluster '" + spec + "'" + quick);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("spec recorded in"), std::string::npos) << r.err;
  r = frugal(st.f.dir, "compare --trace '" + trace + "' --cluster '" + spec + "'" + quick);
  EXPECT_EQ(r.code, 0) << r.err;
}

// A database from before schema 10 records no cluster: readers say so naming it; this
// build's service migrates it and records its cluster.
TEST(History, ASchema9DatabaseMigratesAndRecordsItsCluster) {
  Fixture f;
  const std::string db = (f.dir / "f.db").string();
  ASSERT_TRUE(Store::open(db).ok());
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    // As schema 9 left it (migrations only ever add).
    EXPECT_EQ(sqlite3_exec(raw,
                           "DROP TABLE cluster_specs; DROP TABLE usage_samples;"
                           "ALTER TABLE jobs DROP COLUMN stage_s;"
                           "ALTER TABLE jobs DROP COLUMN restore_s;"
                           "ALTER TABLE jobs DROP COLUMN staging_s;"
                           "ALTER TABLE jobs DROP COLUMN staging_usd;"
                           "PRAGMA user_version = 9;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  auto specs = read_cluster_specs(db);
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  EXPECT_TRUE(specs.value().empty());
  const auto none = choose_cluster_spec(db, -1);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find(db + ": no cluster spec recorded (schema version 9"),
            std::string::npos)
      << none.error().message;
  const std::string out = (f.dir / "trace.csv").string();
  Exit r = frugal(f.dir, "history export --db '" + db + "' --out '" + out + "' --cluster-out '" +
                             (f.dir / "c.yaml").string() + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--cluster-out: " + db + ": no cluster spec recorded"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));  // nothing written
  r = frugal(f.dir, "whatif --db '" + db + "' --policies fifo");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(db + ": no cluster spec recorded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--cluster FILE"), std::string::npos) << r.err;

  f.make();  // this build's service: migrates, records
  {
    auto s = Store::open(db);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s.value()->schema_version(), kSchemaVersion);
    auto latest = s.value()->latest_cluster_spec();
    ASSERT_TRUE(latest.ok());
    ASSERT_TRUE(latest.value().has_value());
    EXPECT_EQ(latest.value()->seq, 1);
  }
  specs = read_cluster_specs(db);
  ASSERT_TRUE(specs.ok());
  EXPECT_EQ(specs.value().size(), 1u);
}

}  // namespace
}  // namespace frugal
