// The elastic cycle plugin (contract in elastic_sizing.h).

#include "policy/elastic_sizing.h"

#include <fmt/format.h>
#include <algorithm>

#include "framework/decision_util.h"
#include "policy/tou_sizing.h"

namespace frugal {
namespace {

using decision_util::whole_slots;

class ElasticSizing final : public CyclePlugin {
 public:
  explicit ElasticSizing(const ElasticOptions& o) : o_(o) {}
  std::string name() const override { return "elastic"; }
  std::vector<std::string> describe_words() const override {
    std::vector<std::string> w{"elastic"};
    if (o_.autoscale_first) w.emplace_back("autoscale-first");
    if (o_.tou) w.emplace_back("tou");
    return w;
  }

  std::optional<Placement> size(const CycleOps& ops, const JobRuntime& r,
                                std::optional<Placement> p, const Candidates& c) const override {
    if (!r.elastic()) return p;
    const JobSpec& s = *r.spec;
    if (p && o_.tou) p = tou_start(ops, r, std::move(*p));
    // A job that does not fit at its requested size may start smaller.
    if (!p && !c.models.empty())
      for (int n = s.gpus - 1; n >= r.min_size() && !p; --n)
        if (n <= ops.cluster().free_whole_total()) p = ops.place_sized(r, n);
    return p;
  }

  void resize(CycleOps& ops) override {
    if (o_.tou && ops.now() >= tou_wake_) tou_wake_ = tou_next_boundary(ops, ops.now());
    if (o_.tou) tou_shrink(ops, ops.now());
    // Without a running elastic job there is nothing to shrink (and the walk over every
    // running job would find nothing).
    if (!ops.pending().empty() && ops.running_elastic() > 0) shrink(ops);
    // The shrink may have started the last queued job: growth then runs at once.
    if (ops.pending().empty()) grow(ops);
  }

  double queued_gpus(const CycleOps& ops, const JobRuntime& r, GpuModelId m,
                     double gpus) const override {
    if (!o_.tou || !r.elastic()) return gpus;
    return tou_start_size(
        ops, r, m, static_cast<uint32_t>(ops.on_demand_shape().region[static_cast<size_t>(m)]),
        ops.now());
  }

  std::vector<double> idle_demand(const CycleOps& ops) const override {
    if (!o_.tou || ops.running_elastic() == 0) return {};
    return tou_growth_demand(ops, ops.now());
  }

  Seconds next_wakeup(const CycleOps& ops) const override {
    return o_.tou && ops.running_elastic() > 0 && tou_wake_ > ops.now() ? tou_wake_ : kNever;
  }

 private:
  // Outside off-peak hours a long elastic job starts on on-demand nodes at the size
  // tou_shrink would leave it.
  static Placement tou_start(const CycleOps& ops, const JobRuntime& r, Placement p) {
    const ClusterSpec& spec = ops.cluster().spec();
    const std::vector<NodeId> at = p.nodes();
    const uint32_t home = spec.region_of(spec.nodes[at.front()]);
    const bool on_demand = std::all_of(at.begin(), at.end(), [&](NodeId n) {
      return ops.capacity().on_demand(n) && spec.region_of(spec.nodes[n]) == home;
    });
    const int size = on_demand ? tou_start_size(ops, r, p.model, home, ops.now()) : r.spec->gpus;
    for (int n = size; n < r.spec->gpus && n >= r.min_size(); --n)
      if (std::optional<Placement> q = ops.place_sized(r, n, p.model)) return std::move(*q);
    return p;
  }

  void shrink(CycleOps& ops) const;
  void grow(CycleOps& ops) const;
  // The job's placement plus the wholly free GPUs of the nodes it already runs on (up to
  // max_gpus), or nullopt when there are none: growth in place never keeps another node up
  // nor needs a new one.
  static std::optional<Placement> grown_in_place(const CycleOps& ops, const JobRuntime& r);
  // Failing that, a larger placement anywhere, restarting the job there: up to max_gpus
  // when every node it adds is paid whether used or not (not an autoscaled on-demand node,
  // whose release the job would delay), otherwise only back up to its request (a job that
  // started below its request because the request did not fit). nullopt when none fits.
  std::optional<Placement> grown_elsewhere(CycleOps& ops, const JobRuntime& r) const;

  ElasticOptions o_;
  // With tou: the next off-peak boundary (recomputed once `now` reaches it; < 0 before the
  // first cycle).
  Seconds tou_wake_ = -1;
};

void ElasticSizing::shrink(CycleOps& ops) const {
  // The first queued whole-GPU job; the walk left it waiting.
  const JobRuntime* blocked = nullptr;
  JobIdx bj = 0;
  for (const QueueKey& k : ops.pending()) {
    const JobSpec& s = *ops.job(k.job).spec;
    if (s.gpus > 0 && !s.fractional()) {
      blocked = &ops.job(k.job);
      bj = k.job;
      break;
    }
  }
  if (!blocked) return;
  const JobSpec& bs = *blocked->spec;
  if (o_.autoscale_first && ops.can_add_capacity(bs)) return;  // a node is on its way
  // Shrink elastic jobs (lowest queue priority first) one GPU at a time, in place (a
  // prefix of their slots), tentatively, down to their minimum, until the blocked job fits.
  ClusterState& state = ops.scratch();
  std::vector<std::pair<JobIdx, Placement>> shrunk;  // job, its smaller placement
  std::optional<Placement> fit;
  for (auto it = ops.running().rbegin(); it != ops.running().rend() && !fit; ++it) {
    const JobRuntime& r = ops.job(it->job);
    if (!r.elastic() || r.signalled() || r.size <= r.min_size()) continue;
    Placement held = r.placement;
    for (int n = r.size - 1; n >= r.min_size() && !fit; --n) {
      Placement smaller;
      smaller.model = held.model;
      smaller.slots.assign(held.slots.begin(), held.slots.begin() + n);
      state.release(held, *r.spec);
      (void)state.allocate(smaller, *r.spec);  // a subset of what it just held
      held = std::move(smaller);
      fit = ops.try_place(state, bs);
    }
    shrunk.emplace_back(it->job, std::move(held));
  }
  // Undo the tentative shrinks; apply them for real only if the blocked job then fits.
  for (const auto& [j, smaller] : shrunk) {
    state.release(smaller, *ops.job(j).spec);
    (void)state.allocate(ops.job(j).placement, *ops.job(j).spec);
  }
  if (!fit) return;
  for (auto& [j, smaller] : shrunk) {
    if (Status st = ops.move(j, std::move(smaller), Decision::Kind::kResize,
                             ops.options().resize_cost_s, fmt::format("shrunk for job {}", bs.id));
        !st.ok()) {
      ops.report_internal(j, "internal: resize rejected: " + st.error().message);
      return;
    }
  }
  std::optional<Placement> p = ops.try_place(ops.cluster(), bs);
  if (p) (void)ops.start_job(bj, std::move(*p));  // if refused, the next cycle retries
}

void ElasticSizing::grow(CycleOps& ops) const {
  if (ops.running_elastic() == 0) return;
  const Seconds now = ops.now();
  std::vector<JobIdx> cands;
  for (const QueueKey& k : ops.running()) {
    const JobRuntime& r = ops.job(k.job);
    const bool resized_now = r.run_start == now && r.restart_s > 0;  // moved this instant
    if (r.elastic() && !r.signalled() && r.size < r.spec->max_gpus && !resized_now)
      cands.push_back(k.job);
  }
  const Seconds cost = ops.options().resize_cost_s;
  for (JobIdx j : cands) {
    if (ops.cluster().free_whole_total() == 0) return;
    const JobRuntime& r = ops.job(j);
    std::optional<Placement> p = grown_in_place(ops, r);
    if (!p) p = grown_elsewhere(ops, r);
    if (!p) continue;
    // Worth it only when the remaining work finishes sooner despite the restart.
    // Work done so far, and the part of it a restart now would lose (since the last checkpoint).
    const double done = r.work_done(now);
    const double lost = std::max(0.0, done - r.progress_ref_s - r.kept_at(now) * r.speed);
    double left = r.spec->runtime_estimate() - done;
    Seconds stay_end = r.expected_end(now);
    if (!(left > 0)) {
      // Past its estimate (a prediction it outlived): what is left is unknown; take it to be
      // as long as what it has done. (Counting none, an overrun job never grew again.)
      left = done;
      stay_end = now + left / r.speed;
    }
    const Seconds grown_end = now + cost + (std::max(0.0, left) + lost) / ops.speed_on(r, *p);
    if (!(grown_end < stay_end)) continue;
    (void)ops.move(j, std::move(*p), Decision::Kind::kResize, cost,
                   "grown into idle GPUs of its nodes");
  }
}

std::optional<Placement> ElasticSizing::grown_elsewhere(CycleOps& ops, const JobRuntime& r) const {
  const ClusterSpec& spec = ops.cluster().spec();
  const CapacityView& pool = ops.capacity();
  // +tou: off-peak growth onto on-demand GPUs of the job's own region when it pays.
  const auto tou_growth_fits = [&](const JobRuntime& job, const Placement& p) {
    if (!o_.tou || p.model != job.placement.model) return false;
    const uint32_t region = spec.region_of(spec.nodes[job.placement.slots.front().node]);
    const std::vector<NodeId> held = job.placement.nodes();
    for (NodeId n : p.nodes()) {
      if (spec.region_of(spec.nodes[n]) != region) return false;
      if (std::find(held.begin(), held.end(), n) != held.end()) continue;
      // A node it adds is one it fills: a node partly used by growth stays up for it.
      int on_node = 0;
      for (const Slot& s : p.slots) on_node += s.node == n ? 1 : 0;
      if (!pool.on_demand(n) || on_node != ops.cluster().gpus(n)) return false;
    }
    return tou_growth_pays(ops, job, whole_slots(p), ops.now(), 0);
  };
  const auto paid_anyway = [&](const Placement& p) {
    const std::vector<NodeId> held = r.placement.nodes();
    for (NodeId n : p.nodes())
      if (pool.autoscaled() && pool.on_demand(n) &&
          std::find(held.begin(), held.end(), n) == held.end())
        return false;
    return true;
  };
  // Place it at the largest allowed size that fits with its own GPUs counted free.
  ClusterState& state = ops.scratch();
  state.release(r.placement, *r.spec);
  const int64_t most = std::min<int64_t>(r.spec->max_gpus, r.size + state.free_whole_total());
  std::optional<Placement> found;
  // Without paid-anyway capacity, back up to its request (+tou: outside off-peak hours only
  // up to tou_peak_size, which tou_shrink would give back again).
  const int cap = o_.tou ? tou_peak_size(ops, r, ops.now()) : r.spec->gpus;
  for (int n = static_cast<int>(most); n > r.size && !found; --n) {
    std::optional<Placement> p = ops.place_sized(r, n);
    if (p && (n <= cap || paid_anyway(*p) || tou_growth_fits(r, *p))) found = std::move(p);
  }
  (void)state.allocate(r.placement, *r.spec);
  return found;
}

std::optional<Placement> ElasticSizing::grown_in_place(const CycleOps& ops, const JobRuntime& r) {
  const ClusterState& state = ops.cluster();
  Placement p = r.placement;
  int room = r.spec->max_gpus - r.size;
  for (NodeId n : r.placement.nodes()) {
    if (!state.up(n)) continue;
    for (int g = 0; g < state.gpus(n) && room > 0; ++g) {
      if (state.free_milli(n, g) < kMilliPerGpu) continue;
      if (r.spec->gpu_memory_mib > 0 && state.free_gpu_memory(n, g) < r.spec->gpu_memory_mib)
        continue;
      p.slots.push_back(Slot{n, static_cast<int16_t>(g), kMilliPerGpu});
      --room;
    }
  }
  if (p.slots.size() == r.placement.slots.size()) return std::nullopt;
  std::sort(p.slots.begin(), p.slots.end(), [](const Slot& a, const Slot& b) {
    return a.node != b.node ? a.node < b.node : a.gpu < b.gpu;
  });
  return p;
}

}  // namespace

std::unique_ptr<CyclePlugin> make_elastic_sizing(const ElasticOptions& o) {
  return std::make_unique<ElasticSizing>(o);
}

}  // namespace frugal
