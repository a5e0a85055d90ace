#include "service/cluster_record.h"

#include <date/date.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>

#include "io/cluster_yaml.h"
#include "io/cluster_yaml_writer.h"
#include "service/auth.h"
#include "service/db_read.h"

namespace frugal {
namespace {

constexpr int kFirstSchemaWithSpecs = 10;

std::string absolute_path(const std::string& p) {
  std::error_code ec;
  const std::filesystem::path a = std::filesystem::absolute(p, ec);
  return ec ? p : a.lexically_normal().string();
}

struct Recorded {
  int schema = 0;
  std::vector<ClusterSpecRow> rows;
};

Result<Recorded> read_recorded(const std::string& db_path) {
  auto opened = open_read_only(db_path);
  if (!opened.ok()) return opened.error();
  const DbHandle& db = opened.value().db;
  Recorded out;
  out.schema = opened.value().schema;
  if (out.schema < kFirstSchemaWithSpecs) return out;
  auto st = prepare_read(db.get(),
                         "SELECT seq, recorded_at, source, spec_yaml, sha256 FROM cluster_specs"
                         " ORDER BY seq;",
                         db_path);
  if (!st.ok()) return st.error();
  sqlite3_stmt* s = st.value().get();
  int step = SQLITE_ROW;
  while ((step = sqlite3_step(s)) == SQLITE_ROW)
    out.rows.push_back(ClusterSpecRow{sqlite3_column_int64(s, 0), sqlite3_column_double(s, 1),
                                      column_text(s, 2), column_text(s, 3), column_text(s, 4)});
  if (step != SQLITE_DONE)
    return Error{fmt::format("{}: reading cluster specs: {}", db_path, sqlite3_errmsg(db.get()))};
  return out;
}

// Why `yaml` does not describe `cluster`'s nodes ("" when it does).
std::string reads_back(const std::string& yaml, const ClusterSpec& cluster,
                       const GpuCatalog& catalog) {
  Result<ClusterSpec> back = parse_cluster_yaml(yaml, "the recorded cluster spec", catalog);
  if (!back.ok()) return back.error().message;
  if (back.value().nodes.size() != cluster.nodes.size() ||
      back.value().total_gpus() != cluster.total_gpus())
    return fmt::format("it reads back as {} node(s) and {} GPU(s), not {} and {}",
                       back.value().nodes.size(), back.value().total_gpus(), cluster.nodes.size(),
                       cluster.total_gpus());
  return "";
}

}  // namespace

std::string utc_text(double t) {
  return date::format("%FT%TZ",
                      date::sys_seconds(std::chrono::seconds(static_cast<int64_t>(std::floor(t)))));
}

std::string cluster_source(const ServiceConfig& config) {
  const std::string file = config.cluster_file.empty() ? "" : absolute_path(config.cluster_file);
  if (config.backend == "dry-run")
    return file.empty() ? "backend dry-run, no cluster file"
                        : fmt::format("cluster file {} (backend dry-run)", file);
  std::string out = config.backend == "slurm" ? "Slurm's inventory (backend slurm)"
                                              : "this host's inventory (backend local)";
  if (!file.empty()) out += ", placed and priced by cluster file " + file;
  if (!config.capacity_pools.empty()) out += ", pools from slurm.pools";
  return out;
}

Result<std::string> record_cluster_spec(Store& store, const ClusterSpec& cluster,
                                        const GpuCatalog& catalog, const std::string& source,
                                        double now) {
  Result<std::string> yaml = write_cluster_yaml(cluster, catalog);
  if (!yaml.ok()) return "cluster spec not recorded: " + yaml.error().message;
  if (const std::string why = reads_back(yaml.value(), cluster, catalog); !why.empty())
    return "cluster spec not recorded: the YAML written does not read back: " + why;
  auto latest = store.latest_cluster_spec();
  if (!latest.ok()) return Error{"cluster spec: " + latest.error().message};
  const std::string sha = sha256_hex(yaml.value());
  if (latest.value() && latest.value()->sha256 == sha && latest.value()->spec_yaml == yaml.value())
    return fmt::format("cluster spec unchanged since {} (spec {})",
                       utc_text(latest.value()->recorded_at), latest.value()->seq);
  if (Status st = store.add_cluster_spec(ClusterSpecRow{0, now, source, yaml.value(), sha});
      !st.ok())
    return Error{"cluster spec: " + st.error().message};
  return fmt::format("cluster spec recorded ({}; {})",
                     latest.value() ? "it changed" : "the first one", source);
}

Result<std::vector<ClusterSpecRow>> read_cluster_specs(const std::string& db_path) {
  Result<Recorded> r = read_recorded(db_path);
  if (!r.ok()) return r.error();
  return std::move(r.value().rows);
}

Result<ClusterSpecChoice> choose_cluster_spec(const std::string& db_path, double first_submit) {
  Result<Recorded> r = read_recorded(db_path);
  if (!r.ok()) return r.error();
  const std::vector<ClusterSpecRow>& rows = r.value().rows;
  if (rows.empty())
    return Error{fmt::format(
        "{}: no cluster spec recorded ({}); give the cluster as a file (docs/CLUSTER_SPEC.md)",
        db_path,
        r.value().schema < kFirstSchemaWithSpecs
            ? fmt::format("schema version {}: frugal serve records the cluster it runs on "
                          "from schema {}, when it starts; start this build's frugal serve "
                          "on it once",
                          r.value().schema, kFirstSchemaWithSpecs)
            : std::string("frugal serve records the cluster it runs on when it starts"))};
  ClusterSpecChoice out{rows.back(), ""};
  if (first_submit < 0) return out;
  std::string changes;
  for (const ClusterSpecRow& row : rows)
    if (row.recorded_at > first_submit && row.seq != rows.front().seq)
      changes += (changes.empty() ? "" : ", ") + utc_text(row.recorded_at);
  if (!changes.empty())
    out.note = fmt::format(
        "the cluster changed during this history (new spec(s) recorded at {}); the latest is "
        "used: jobs that ran before it ran on another cluster",
        changes);
  if (rows.front().recorded_at > first_submit) {
    if (!out.note.empty()) out.note += "; ";
    out.note += fmt::format(
        "the first cluster spec was recorded at {}, after the history's first job: the cluster "
        "the jobs before it ran on was not recorded",
        utc_text(rows.front().recorded_at));
  }
  return out;
}

}  // namespace frugal
