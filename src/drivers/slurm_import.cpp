#include "drivers/slurm_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

namespace frugal {
namespace {

// States a job is in while it may still run (or run again): its last record in one of them
// means the job had not ended when the accounting was read. A jobcomp run that ended in a
// requeue is logged as PENDING (or REQUEUED).
bool not_ended(const SlurmRecord& r) {
  static constexpr std::string_view kOpen[] = {
      "PENDING",   "REQUEUED",    "REQUEUE_HOLD", "REQUEUE_FED",  "RUNNING",
      "SUSPENDED", "CONFIGURING", "COMPLETING",   "RESIZING",     "SIGNALING",
      "STAGE_OUT", "STOPPED",     "SPECIAL_EXIT", "RESV_DEL_HOLD"};
  if (r.end_unix == 0) return true;
  return std::find(std::begin(kOpen), std::end(kOpen), r.state) != std::end(kOpen);
}

// GPU models of GRES types, nodes and partitions.
class ModelResolver {
 public:
  ModelResolver(const GpuCatalog& catalog, const SlurmImportMap& map,
                const SlurmImportOptions& options)
      : catalog_(catalog), map_(map), options_(options) {
    std::map<std::string, bool> unresolved;  // partitions with a node of unknown GPU type
    for (const SlurmNode& n : options.nodes) {
      if (n.gpu_type.empty() || n.gpus == 0) continue;
      node_type_[n.name] = n.gpu_type;
      const auto m = by_type(n.gpu_type);
      for (const std::string& p : n.partitions) {
        if (!m) {
          unresolved[p] = true;
          continue;
        }
        auto& models = partition_models_[p];
        if (std::find(models.begin(), models.end(), *m) == models.end()) models.push_back(*m);
      }
    }
    for (const auto& [p, bad] : unresolved) partition_models_.erase(p);
    for (const auto& [p, models] : map.partition_models) partition_models_[p] = models;
  }

  // The catalog model of a GRES type: the map file's gpu_types, the GPU map, the catalog.
  std::optional<GpuModelId> by_type(const std::string& type) const {
    if (auto it = map_.gpu_types.find(type); it != map_.gpu_types.end())
      return catalog_.find(it->second);
    for (const GresMapping& g : options_.gpu_map)
      if (g.gres_type == type) return catalog_.find(g.model);
    return catalog_.find(type);
  }

  // The models jobs of `partition` may run on (empty: any).
  std::vector<GpuModelId> allowed(const std::string& partition) const {
    auto it = partition_models_.find(partition);
    return it == partition_models_.end() ? std::vector<GpuModelId>{} : it->second;
  }

  // The model a run held `g` on (see the header). `defaulted` is set when it is the default.
  Result<GpuModelId> model(const SlurmRecord& run, const GresItem& g, const std::string& field,
                           bool& defaulted) const {
    auto fallback = [&](const std::string& why) -> Result<GpuModelId> {
      if (options_.default_model == kNoGpuModel)
        return Error{fmt::format("{} (job {}): {}: {}", run.where, run.job_id, field, why)};
      defaulted = true;
      return options_.default_model;
    };
    auto unknown = [](const std::string& type) {
      return fmt::format(
          "is not a GPU model frugal knows (map it with --gpu-map {}=MODEL or gpu_types in "
          "--map, or give --default-gpu-model)",
          type);
    };
    if (!g.type.empty()) {
      if (auto m = by_type(g.type)) return *m;
      return fallback(fmt::format("GRES type '{}' {}", g.type, unknown(g.type)));
    }
    for (const std::string& node : run.nodes) {
      auto it = node_type_.find(node);
      if (it == node_type_.end()) continue;
      if (auto m = by_type(it->second)) return *m;
      return fallback(fmt::format("untyped GPUs on node {}, whose GRES type '{}' {}", node,
                                  it->second, unknown(it->second)));
    }
    if (auto a = allowed(run.partition); a.size() == 1) return a[0];
    return fallback(fmt::format(
        "untyped GPUs ('{}:{}') and no GPU model known for nodes [{}] of partition '{}' (give "
        "--sinfo, a partitions entry in --map, or --default-gpu-model)",
        g.name, g.count, fmt::join(run.nodes, ","), run.partition));
  }

 private:
  const GpuCatalog& catalog_;
  const SlurmImportMap& map_;
  const SlurmImportOptions& options_;
  std::map<std::string, std::string> node_type_;
  std::map<std::string, std::vector<GpuModelId>> partition_models_;
};

// One job's records in time order (by end, unknown ends last, then as read).
std::vector<const SlurmRecord*> ordered(const std::vector<SlurmRecord>& all,
                                        const std::vector<size_t>& idx) {
  std::vector<size_t> sorted = idx;
  auto key = [&](size_t i) {
    const SlurmRecord& r = all[i];
    return std::make_tuple(r.end_unix == 0 ? std::numeric_limits<int64_t>::max() : r.end_unix,
                           r.start_unix, i);
  };
  std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::vector<const SlurmRecord*> out;
  out.reserve(sorted.size());
  for (size_t i : sorted) out.push_back(&all[i]);
  return out;
}

std::string team_of(const SlurmRecord& r, const SlurmImportMap& map) {
  const std::string& first = map.team_from_user ? r.user : r.account;
  const std::string& second = map.team_from_user ? r.account : r.user;
  return !first.empty() ? first : !second.empty() ? second : std::string("default");
}

// A job with absolute times (Unix seconds); the caller moves them to the epoch.
struct Built {
  JobSpec spec;
  double submit_unix = 0;
};

// The GPUs a job asked for, from the first of its runs (else records) that names them.
const SlurmRecord* gpu_record(const std::vector<const SlurmRecord*>& recs) {
  for (const SlurmRecord* r : recs)
    if (r->ran && r->gres.count > 0) return r;
  for (const SlurmRecord* r : recs)
    if (r->gres.count > 0) return r;
  return nullptr;
}

void set_gpus(JobSpec& s, const GresItem& g, int shards_per_gpu) {
  if (g.name == "shard") {
    s.gpus = 1;
    s.gpu_milli = static_cast<Milli>(
        std::clamp<int64_t>(g.count * kMilliPerGpu / shards_per_gpu, 1, kMilliPerGpu));
  } else {
    s.gpus = static_cast<int>(g.count);
    s.gpu_milli = kMilliPerGpu;
  }
}

class Importer {
 public:
  Importer(const GpuCatalog& catalog, const SlurmImportMap& map, const SlurmImportOptions& o,
           SlurmImport& out)
      : catalog_(catalog), map_(map), options_(o), models_(catalog, map, o), out_(out) {}

  // The job of `recs` (one job id, in time order), or nullopt when it is left out (counted).
  Result<std::optional<Built>> job(const std::vector<const SlurmRecord*>& recs) {
    std::vector<const SlurmRecord*> runs;
    for (const SlurmRecord* r : recs)
      if (r->ran) runs.push_back(r);
    const SlurmRecord& last = *recs.back();
    const SlurmRecord* gpu = gpu_record(recs);
    int* left_out = not_ended(last) ? &out_.unfinished
                    : runs.empty()  ? &out_.never_started
                    : !gpu          ? &out_.without_gpus
                                    : nullptr;
    if (left_out) {
      ++*left_out;
      return std::optional<Built>();
    }

    Built b;
    JobSpec& s = b.spec;
    s.id = last.array_id.empty() ? std::to_string(last.job_id) : last.array_id;
    s.name = last.name.empty() ? runs.front()->name : last.name;
    if (last.state != "COMPLETED") s.name += (s.name.empty() ? "[" : " [") + last.state + "]";
    s.team = team_of(last, map_);
    s.tier = map_.tier(last.qos, last.partition);
    s.job_class = map_.job_class(last.qos, last.partition);
    set_gpus(s, gpu->gres, options_.shards_per_gpu);
    s.allowed_models = models_.allowed(last.partition);

    bool defaulted = false;
    double duration = 0, first_speed = 1;
    int64_t first_start = runs.front()->start_unix, end = runs.front()->end_unix;
    std::vector<GpuModelId> pinned;  // --pin-models: the models its runs ran on
    for (size_t i = 0; i < runs.size(); ++i) {
      const SlurmRecord& r = *runs[i];
      const bool own = r.gres.count > 0;
      auto m = models_.model(r, own ? r.gres : gpu->gres, own ? r.gres_field : gpu->gres_field,
                             defaulted);
      if (!m.ok()) return m.error();
      const double speed = catalog_.relative_speed(m.value(), options_.reference, s.job_class);
      if (i == 0) first_speed = speed;
      if (options_.pin_models && std::find(pinned.begin(), pinned.end(), m.value()) == pinned.end())
        pinned.push_back(m.value());
      duration += static_cast<double>(r.end_unix - r.start_unix) * speed;
      first_start = std::min(first_start, r.start_unix);
      end = std::max(end, r.end_unix);
    }
    out_.default_model += defaulted ? 1 : 0;
    if (options_.pin_models) s.allowed_models = std::move(pinned);
    s.duration = duration;
    if (last.time_limit_s > 0) s.estimate = static_cast<double>(last.time_limit_s) * first_speed;
    int64_t submit = first_start;
    for (const SlurmRecord* r : recs)
      if (r->submit_unix > 0) submit = std::min(submit, r->submit_unix);
    b.submit_unix = static_cast<double>(submit);
    s.submit = b.submit_unix;  // absolute until moved to the epoch
    s.recorded_start = static_cast<double>(first_start);
    s.recorded_end = static_cast<double>(end);
    s.recorded_restarts = static_cast<int>(runs.size()) - 1;
    ++out_.final_states[last.state];
    return std::optional<Built>(std::move(b));
  }

 private:
  const GpuCatalog& catalog_;
  const SlurmImportMap& map_;
  const SlurmImportOptions& options_;
  ModelResolver models_;
  SlurmImport& out_;
};

}  // namespace

Result<SlurmImport> import_slurm(const std::vector<SlurmRecord>& records, const GpuCatalog& catalog,
                                 const SlurmImportMap& map, const SlurmImportOptions& options) {
  SlurmImport out;
  out.records = records.size();
  // Records by job id, jobs in order of first appearance.
  std::map<int64_t, size_t> slot;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < records.size(); ++i) {
    auto [it, fresh] = slot.try_emplace(records[i].job_id, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  Importer importer(catalog, map, options, out);
  std::vector<Built> built;
  for (const auto& g : groups) {
    auto b = importer.job(ordered(records, g));
    if (!b.ok()) return b.error();
    if (b.value()) built.push_back(std::move(*b.value()));
  }
  if (built.empty()) return out;
  double first = built.front().submit_unix;
  for (const Built& b : built) first = std::min(first, b.submit_unix);
  out.epoch_unix_s = std::floor(first / 3600) * 3600;
  out.jobs.reserve(built.size());
  for (Built& b : built) {
    JobSpec& s = b.spec;
    s.submit -= out.epoch_unix_s;
    s.recorded_start -= out.epoch_unix_s;
    s.recorded_end -= out.epoch_unix_s;
    out.jobs.push_back(std::move(s));
  }
  std::stable_sort(out.jobs.begin(), out.jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
  });
  return out;
}

std::vector<SlurmRecord> records_from_jobcomp(const std::vector<JobcompRecord>& records,
                                              const GresLog& gres, const std::string& origin) {
  std::vector<SlurmRecord> out;
  out.reserve(records.size());
  for (const JobcompRecord& rec : records) {
    SlurmRecord s;
    s.where = fmt::format("{}:{}", origin, rec.line);
    s.job_id = rec.job_id;
    s.name = rec.name;
    s.user = rec.user;
    s.account = rec.account;
    s.partition = rec.partition;
    s.qos = rec.qos;
    s.state = rec.state;
    s.nodes = rec.nodes;
    s.submit_unix = rec.submit_unix;
    s.start_unix = rec.start_unix;
    s.end_unix = rec.end_unix;
    s.time_limit_s = rec.time_limit_min >= 0 ? rec.time_limit_min * 60 : -1;
    s.ran = rec.ran() && rec.start_unix > 0;
    if (auto g = gres.find({rec.job_id, rec.start_unix}); g != gres.end()) {
      for (const GresItem& item : g->second) {
        if (item.count == 0) continue;
        if (s.gres.name.empty()) s.gres.name = item.name;
        if (s.gres.type.empty()) s.gres.type = item.type;
        if (item.name == s.gres.name) s.gres.count += item.count;
      }
      s.gres_field = "GRES log";
    }
    if (s.gres.count == 0 && rec.gpus_from_tres > 0) {
      s.gres = GresItem{"gpu", rec.gpu_type_from_tres, rec.gpus_from_tres, {}};
      s.gres_field = "Tres";
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace frugal
