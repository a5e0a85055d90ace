#include "drivers/slurm_accounting.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>

#include "cluster/cluster_state.h"
#include "cost/run_accounting.h"
#include "engine/node_pool.h"

namespace frugal {
namespace {

struct Run {
  JobIdx job = 0;
  const JobcompRecord* rec = nullptr;
  std::vector<NodeId> nodes;
  std::vector<GresItem> gres;  // per node; empty items = no GPUs known
  Placement placement;
  bool placed = false;
  bool last = false;  // the job's last record
};

// The GPU slots a run held, from its recorded device indices where they are free, else
// the first free GPUs of each node.
std::optional<Placement> place(const Run& r, const ClusterState& st, const JobSpec& spec,
                               int shards_per_gpu) {
  Placement p;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const NodeId n = r.nodes[i];
    p.model = st.model(n);
    const GresItem& g = r.gres[i];
    if (spec.gpus == 0 || g.count == 0) {
      p.slots.push_back({n, -1, 0});
      continue;
    }
    const bool shard = g.name == "shard";
    const int want = shard ? 1 : static_cast<int>(g.count);
    const Milli milli =
        shard ? std::min<Milli>(kMilliPerGpu,
                                static_cast<Milli>(g.count * kMilliPerGpu / shards_per_gpu))
              : kMilliPerGpu;
    std::vector<int> chosen;
    for (int idx : g.indices)
      if (idx >= 0 && idx < st.gpus(n) && st.free_milli(n, idx) >= milli &&
          static_cast<int>(chosen.size()) < want)
        chosen.push_back(idx);
    if (static_cast<int>(chosen.size()) < want) chosen.clear();
    for (int k = 0; k < st.gpus(n) && static_cast<int>(chosen.size()) < want; ++k)
      if (st.free_milli(n, k) >= milli) chosen.push_back(k);
    if (static_cast<int>(chosen.size()) < want) return std::nullopt;
    std::sort(chosen.begin(), chosen.end());
    for (int k : chosen) p.slots.push_back({n, static_cast<int16_t>(k), milli});
  }
  return p;
}

// Why a run's recorded GPUs cannot be held on its nodes whatever else runs there ("" if they
// can): more GPUs on a node than it has.
std::string impossible(const Run& r, const ClusterState& st) {
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const GresItem& g = r.gres[i];
    if (g.name != "shard" && g.count > st.gpus(r.nodes[i]))
      return fmt::format("it holds {} GPUs on {}, which has {}", g.count, r.rec->nodes[i],
                         st.gpus(r.nodes[i]));
  }
  return "";
}

// A GRES type in the run's record that is not its node's GPU (a log from another cluster,
// or a stale GPU map): "" when every typed item matches. The run is still priced, as the
// node's GPUs (what it held), and the caller warns.
std::string foreign_type(const Run& r, const ClusterState& st, const GpuCatalog& catalog,
                         const SlurmConfig& config) {
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const GresItem& g = r.gres[i];
    if (g.type.empty() || g.count == 0) continue;
    const GresMapping* m = config.by_gres_type(g.type);
    const auto id = m ? catalog.find(m->model) : std::nullopt;
    const GpuModelId node_model = st.model(r.nodes[i]);
    if (id && *id == node_model) continue;
    const std::string node_gpu =
        node_model == kNoGpuModel ? std::string("no GPU") : catalog.at(node_model).name;
    return fmt::format("its GRES type '{}' is not the GPU of {} ({}{}); priced as the node's",
                       g.type, r.rec->nodes[i], node_gpu, m ? "" : ", and not in the GPU map");
  }
  return "";
}

// The runs of `records` with one JobSpec per Slurm job id (stable addresses in `specs`),
// each job's first start and the span; skipped records are warned about in `out`.
struct Collected {
  std::vector<Run> runs;
  std::deque<JobSpec> specs;  // stable addresses for the ledger
  std::vector<int64_t> first_start;
};

// Why a record that names nodes cannot be placed in time ("" when it can): an Unknown start
// read as 1970 made a 56-year run, so such records are neither costed nor silently dropped.
std::string bad_times(const JobcompRecord& rec) {
  if (rec.nodes.empty()) return "";
  if (rec.start_unix == 0 || rec.end_unix == 0)
    return fmt::format("job {}: no {} in its record: run skipped", rec.job_id,
                       rec.start_unix == 0 ? "StartTime" : "EndTime");
  if (rec.end_unix < rec.start_unix)
    return fmt::format("job {}: EndTime before StartTime in its record: run skipped", rec.job_id);
  return "";
}

// The GPUs a run held per node: frugal's GRES log, else the record's Tres, else none.
void run_gres(Run& r, const JobcompRecord& rec, const GresLog& gres, SlurmAttribution& out) {
  if (auto g = gres.find({rec.job_id, rec.start_unix});
      g != gres.end() && g->second.size() == r.nodes.size()) {
    r.gres = g->second;
  } else if (rec.gpus_from_tres > 0) {
    const int per_node = rec.gpus_from_tres / static_cast<int>(r.nodes.size());
    r.gres.assign(r.nodes.size(), GresItem{"gpu", rec.gpu_type_from_tres, per_node, {}});
  } else {
    r.gres.assign(r.nodes.size(), GresItem{});
    ++out.runs_without_gpus;
  }
}

// A Slurm job's spec from its first run: team = account, else user.
JobSpec job_spec(const JobcompRecord& rec, const Run& r, const SlurmConfig& config) {
  JobSpec s;
  s.id = fmt::format("slurm-{}", rec.job_id);
  s.name = rec.name;
  s.team = !rec.account.empty() ? rec.account : !rec.user.empty() ? rec.user : "default";
  const GresItem& g0 = r.gres[0];
  if (g0.count == 0) {
    s.gpus = 0;
  } else if (g0.name == "shard") {
    s.gpus = 1;
    s.gpu_milli = std::min<Milli>(
        kMilliPerGpu, static_cast<Milli>(g0.count * kMilliPerGpu / config.shards_per_gpu));
  } else {
    s.gpus = static_cast<int>(g0.count * static_cast<int64_t>(r.nodes.size()));
  }
  return s;
}

Result<Collected> collect_runs(const std::vector<JobcompRecord>& records, const GresLog& gres,
                               const ClusterSpec& cluster, const SlurmConfig& config,
                               SlurmAttribution& out) {
  std::map<std::string, NodeId> node_ix;
  for (NodeId n = 0; n < cluster.nodes.size(); ++n) node_ix[cluster.nodes[n].name] = n;
  Collected c;
  std::map<int64_t, JobIdx> job_of;
  for (const JobcompRecord& rec : records) {
    if (std::string why = bad_times(rec); !why.empty()) {
      out.warnings.push_back(std::move(why));
      continue;
    }
    if (!rec.ran()) continue;
    Run r;
    r.rec = &rec;
    for (const auto& name : rec.nodes) {
      auto it = node_ix.find(name);
      if (it == node_ix.end())
        return Error{fmt::format("jobcomp record of job {}: node '{}' is not in the cluster",
                                 rec.job_id, name)};
      r.nodes.push_back(it->second);
    }
    run_gres(r, rec, gres, out);
    auto [it, fresh] = job_of.try_emplace(rec.job_id, static_cast<JobIdx>(c.specs.size()));
    if (fresh) {
      c.specs.push_back(job_spec(rec, r, config));
      c.first_start.push_back(rec.start_unix);
    }
    r.job = it->second;
    c.first_start[r.job] = std::min(c.first_start[r.job], rec.start_unix);
    c.runs.push_back(std::move(r));
  }
  // The job's last run (by end time) closes its account.
  std::map<JobIdx, size_t> last_run;
  for (size_t i = 0; i < c.runs.size(); ++i) {
    auto [it, fresh] = last_run.try_emplace(c.runs[i].job, i);
    if (!fresh && c.runs[it->second].rec->end_unix <= c.runs[i].rec->end_unix) it->second = i;
  }
  for (const auto& [j, i] : last_run) c.runs[i].last = true;
  return c;
}

// A run begins: placed on its recorded GPUs when it can be (else warned about and left out).
void start_run(Run& r, const JobSpec& js, ClusterState& state, const GpuCatalog& catalog,
               const SlurmConfig& config, SlurmAttribution& out) {
  auto warn = [&](const std::string& why) {
    out.warnings.push_back(
        fmt::format("job {} run at {}: {}", r.rec->job_id, r.rec->start_unix, why));
  };
  if (std::string why = impossible(r, state); !why.empty()) return warn(why);
  if (std::string why = foreign_type(r, state, catalog, config); !why.empty()) warn(why);
  auto p = place(r, state, js, config.shards_per_gpu);
  if (!p)
    return warn(fmt::format("its GPUs are not free on {} in this account (overlapping records)",
                            r.rec->nodes[0]));
  if (Status st = state.allocate(*p, js); !st.ok()) {
    out.warnings.push_back(fmt::format("job {}: {}", r.rec->job_id, st.error().message));
    return;
  }
  r.placement = std::move(*p);
  r.placed = true;
}

}  // namespace

Result<SlurmAttribution> attribute_jobcomp(const std::vector<JobcompRecord>& records,
                                           const GresLog& gres, const ClusterSpec& cluster,
                                           const GpuCatalog& catalog, const SlurmConfig& config) {
  SlurmAttribution out;
  out.records = records.size();
  Result<Collected> collected = collect_runs(records, gres, cluster, config, out);
  if (!collected.ok()) return collected.error();
  Collected& c = collected.value();
  std::vector<Run>& runs = c.runs;
  out.runs = runs.size();
  if (runs.empty()) return out;

  ClusterSpec spec = cluster;
  int64_t t0 = runs[0].rec->start_unix, t1 = runs[0].rec->end_unix;
  for (const Run& r : runs) {
    t0 = std::min(t0, r.rec->start_unix);
    t1 = std::max(t1, r.rec->end_unix);
  }
  spec.epoch_unix_s = t0;
  out.first_unix = t0;
  out.last_unix = t1;
  ClusterState state(spec, catalog);
  NodePool pool(spec, state, /*static_capacity=*/true);
  RunAccounting accounting(spec, catalog, state, kNoGpuModel, c.specs.size());

  // Sweep: ends before starts at the same instant.
  struct Ev {
    int64_t t;
    bool start;
    size_t run;
  };
  std::vector<Ev> evs;
  for (size_t i = 0; i < runs.size(); ++i) {
    evs.push_back({runs[i].rec->start_unix, true, i});
    evs.push_back({runs[i].rec->end_unix, false, i});
  }
  std::sort(evs.begin(), evs.end(),
            [](const Ev& a, const Ev& b) { return a.t != b.t ? a.t < b.t : a.start < b.start; });
  double last_t = 0;
  for (const Ev& e : evs) {
    const double t = static_cast<double>(e.t - t0);
    if (t > last_t)
      accounting.capacity(last_t, t, 0, pool.provisioned_gpus(), pool.booting_gpus(),
                          pool.provisioned_nodes());
    last_t = std::max(last_t, t);
    Run& r = runs[e.run];
    const JobSpec& js = c.specs[r.job];
    if (e.start) {
      start_run(r, js, state, catalog, config, out);
      continue;
    }
    if (!r.placed) continue;
    const double ts = static_cast<double>(r.rec->start_unix - t0);
    accounting.segment(r.job, js, r.placement, ts, t, t - ts);
    state.release(r.placement, js);
    double held = 0;
    for (const Slot& s : r.placement.slots) held += s.gpu >= 0 ? s.milli / double(kMilliPerGpu) : 0;
    out.gpu_hours += held * (t - ts) / 3600.0;
    if (r.last) accounting.job_ended(r.job, js, static_cast<double>(c.first_start[r.job] - t0), t);
  }
  out.ledger = accounting.report();
  return out;
}

}  // namespace frugal
