#include "cli/inputs.h"

#include <fmt/format.h>
#include <algorithm>

#include "io/catalog_yaml.h"
#include "io/cluster_yaml.h"
#include "io/trace_reader.h"
#include "sim/class_assignment.h"

namespace frugal {

void InputOptions::add_to(CLI::App& cmd, bool trace_required) {
  auto* t = cmd.add_option("--trace", trace, "Workload trace file");
  if (trace_required) t->required();
  cmd.add_option("--trace-format", trace_format,
                 "Force the trace format: itp, elasticflow, openb, pollux, native");
  cmd.add_flag("--skip-bad-rows", skip_bad_rows, "Skip and count malformed rows");
  auto* c = cmd.add_option("--cluster", cluster, "Cluster spec (YAML, or an openb node list)");
  auto* g = cmd.add_option("--gpus", gpus, "Quick homogeneous cluster of N GPUs in 8-GPU nodes")
                ->check(CLI::Range(int64_t{1}, int64_t{10'000'000}));
  // The nodes it makes are capped at a cluster file's limit (1,000,000), checked in
  // load_inputs once --gpus-per-node is known.
  c->excludes(g);
  cmd.add_option("--gpu-model", gpu_model, "GPU model of the --gpus cluster")
      ->capture_default_str();
  cmd.add_option("--gpus-per-node", gpus_per_node, "Node size of the --gpus cluster")
      ->check(CLI::Range(1, kMaxGpusPerNode))
      ->capture_default_str();
  cmd.add_option("--catalog", catalog, "GPU catalog YAML replacing the built-in one");
  cmd.add_option("--reference-model", reference_model,
                 "GPU model the trace's durations were measured on, or 'none' for no speed "
                 "scaling (default: the --gpu-model of a --gpus cluster; 'none' for a trace "
                 "that ships its own nodes; else A100-80GB)");
  cmd.add_option("--assign-classes", assign_classes_seed,
                 "Give jobs classes by the seeded rule of docs/EXPERIMENTS.md (replaces the "
                 "trace's classes)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--assign-tiers", assign_tiers_seed,
                 "Give jobs priority tiers by class by the seeded rule of "
                 "src/sim/class_assignment.h (replaces the trace's tiers; after --assign-classes)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--deferrable-share", deferrable_share,
                 "Make this share of GPU jobs deferrable with a deadline, by the seeded rule of "
                 "src/sim/class_assignment.h")
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--deadline-slack", deadline_slack_h,
                 "Hours of slack of --deferrable-share jobs: deadline = submit + duration + "
                 "slack (0 = no deadline)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--deferrable-seed", deferrable_seed, "Seed of --deferrable-share")
      ->capture_default_str();
  cmd.add_option("--deferrable-max-hours", deferrable_max_h,
                 "Only jobs of at most this many hours (reference model) may be made deferrable "
                 "by --deferrable-share (0 = any)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--elastic-share", elastic_share,
                 "Make this share of whole-GPU training jobs elastic: ceil(g/2)..2g GPUs "
                 "(after --assign-classes)")
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--elastic-seed", elastic_seed, "Seed of --elastic-share")->capture_default_str();
  cmd.add_option("--movable-share", movable_share,
                 "Make this share of GPU jobs movable between regions (follow-the-sun, policy "
                 "suffix +sun), by the seeded rule of src/sim/class_assignment.h")
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--movable-seed", movable_seed, "Seed of --movable-share")->capture_default_str();
  cmd.add_option("--movable-dataset-gb", movable_dataset_gb,
                 "Dataset GB of --movable-share jobs that declare none (moved with the job)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--movable-checkpoint-gb", movable_checkpoint_gb,
                 "Checkpoint GB of --movable-share jobs that declare none (moved with the job)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--checkpoint-interval", checkpoint_interval_s,
                 "Seconds between checkpoints of jobs that declare no interval (0 = leave them: "
                 "they checkpoint when stopped)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--checkpoint-write", checkpoint_write_s,
                 "Seconds jobs that declare none need to write a checkpoint (a spot reclaim's "
                 "notice must cover it, src/policy/spot_cost.h)")
      ->check(CLI::NonNegativeNumber);
}

namespace {

// The seeded rules of src/sim/class_assignment.h the options ask for, in their order.
void assign_attributes(std::vector<JobSpec>& jobs, const InputOptions& o) {
  if (o.assign_classes_seed >= 0)
    assign_classes(jobs, static_cast<uint64_t>(o.assign_classes_seed));
  if (o.assign_tiers_seed >= 0) assign_tiers(jobs, static_cast<uint64_t>(o.assign_tiers_seed));
  if (o.deferrable_share > 0)
    assign_deferrable(jobs, o.deferrable_share, o.deadline_slack_h * 3600, o.deferrable_seed,
                      o.deferrable_max_h * 3600);
  if (o.elastic_share > 0) assign_elastic(jobs, o.elastic_share, o.elastic_seed);
  if (o.movable_share > 0)
    assign_movable(jobs, o.movable_share, o.movable_seed, o.movable_dataset_gb,
                   o.movable_checkpoint_gb);
  if (o.checkpoint_interval_s > 0 || o.checkpoint_write_s >= 0)
    assign_checkpoints(jobs, o.checkpoint_interval_s, o.checkpoint_write_s);
}

// The cluster: --gpus, --cluster or the trace's own nodes. A --gpus cluster's model is the
// default reference model (set in `reference` when it is still empty).
Status load_cluster(const InputOptions& o, Inputs& in, std::string& reference) {
  if (o.gpus > 0) {
    const auto m = in.catalog.find(o.gpu_model);
    if (!m) return Error{fmt::format("--gpu-model: unknown GPU model '{}'", o.gpu_model)};
    if ((o.gpus + o.gpus_per_node - 1) / o.gpus_per_node > 1'000'000)
      return Error{fmt::format(
          "--gpus {} in {}-GPU nodes makes more than 1000000 nodes (a cluster file's limit)",
          o.gpus, o.gpus_per_node)};
    in.cluster = make_homogeneous_cluster(o.gpus, *m, o.gpus_per_node);
    if (reference.empty()) reference = in.catalog.at(*m).name;
  } else if (!o.cluster.empty()) {
    auto cl = load_cluster_file(o.cluster, in.catalog);
    if (!cl.ok()) return cl.error();
    in.cluster = std::move(cl).value();
  } else if (in.trace.cluster) {
    in.cluster = *in.trace.cluster;
  } else {
    return Error{"no cluster: give --cluster FILE or --gpus N"};
  }
  return Status::Ok();
}

// Why job `j` names a region or storage tier the cluster does not have ("" when it does not).
std::string misplaced(const JobSpec& j, const ClusterSpec& cluster,
                      const std::vector<StorageTier>& tiers) {
  if (!j.data_region.empty() && cluster.region_index(j.data_region) < 0)
    return fmt::format("field 'data_region': '{}' is not a region of the cluster", j.data_region);
  if (j.dataset_gb + j.checkpoint_gb > 0 &&
      std::none_of(tiers.begin(), tiers.end(),
                   [&](const StorageTier& t) { return t.name == j.storage_tier; }))
    return fmt::format("field 'storage_tier': '{}' is not a tier of the cluster", j.storage_tier);
  return "";
}

// Regions and storage tiers named by jobs must exist in the cluster (the default tiers
// when it names none). A row that fails is an error naming its line, or skipped and
// counted under --skip-bad-rows like any other bad row.
Status check_job_places(const InputOptions& o, Inputs& in) {
  const auto tiers =
      in.cluster.storage_tiers.empty() ? default_storage_tiers() : in.cluster.storage_tiers;
  // Kept rows are compacted in place (no copy of the trace when every row is fine).
  size_t kept = 0;
  const bool have_lines = in.trace.lines.size() == in.trace.jobs.size();
  for (size_t i = 0; i < in.trace.jobs.size(); ++i) {
    const JobSpec& j = in.trace.jobs[i];
    const size_t line = have_lines ? in.trace.lines[i] : 0;
    const std::string why = misplaced(j, in.cluster, tiers);
    if (why.empty()) {
      if (kept != i) {
        in.trace.jobs[kept] = std::move(in.trace.jobs[i]);
        if (have_lines) in.trace.lines[kept] = line;
      }
      ++kept;
      continue;
    }
    const std::string msg = line > 0 ? fmt::format("{}:{}: {}", o.trace, line, why)
                                     : fmt::format("{}: job '{}': {}", o.trace, j.id, why);
    if (!o.skip_bad_rows) return Error{msg};
    ++in.trace.skipped_rows;
    if (in.trace.warnings.size() < kMaxTraceWarnings) in.trace.warnings.push_back(msg);
  }
  in.trace.jobs.resize(kept);
  if (have_lines) in.trace.lines.resize(kept);
  return Status::Ok();
}

}  // namespace

Result<Inputs> load_inputs(const InputOptions& o) {
  auto cat = o.catalog.empty() ? load_builtin_catalog() : load_catalog_file(o.catalog);
  if (!cat.ok()) return cat.error();
  TraceOptions to;
  to.format = o.trace_format;
  to.skip_bad_rows = o.skip_bad_rows;
  to.catalog = &cat.value();
  auto tr = read_trace(o.trace, to);
  if (!tr.ok()) return tr.error();
  return load_inputs(o, std::move(tr).value(), std::move(cat).value());
}

Result<Inputs> load_inputs(const InputOptions& o, Trace trace, GpuCatalog catalog) {
  Inputs in;
  in.catalog = std::move(catalog);
  in.trace = std::move(trace);
  assign_attributes(in.trace.jobs, o);

  std::string reference = o.reference_model;
  if (Status st = load_cluster(o, in, reference); !st.ok()) return st.error();
  if (Status st = check_job_places(o, in); !st.ok()) return st.error();
  // A trace that ships its own nodes (openb) measured durations on those nodes: no scaling.
  if (reference.empty()) reference = in.trace.cluster && o.cluster.empty() ? "none" : "A100-80GB";
  if (reference == "none") {
    in.reference_model = kNoGpuModel;
    return in;
  }
  const auto ref = in.catalog.find(reference);
  if (!ref) return Error{fmt::format("--reference-model: unknown GPU model '{}'", reference)};
  in.reference_model = *ref;
  return in;
}

void warn_skipped_rows(const std::string& path, const Trace& trace) {
  if (trace.skipped_rows == 0) return;
  fmt::print(stderr, "warning: {}: skipped {} malformed rows", path, trace.skipped_rows);
  if (!trace.warnings.empty()) fmt::print(stderr, " (first: {})", trace.warnings[0]);
  fmt::print(stderr, "\n");
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace frugal
