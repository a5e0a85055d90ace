// Elastic resizing (profile +elastic): the Engine's points that shrink running elastic jobs
// for a queued job and grow them into idle capacity (contracts in engine.h; the model — work,
// speed-up n^alpha, resize cost — in EngineOptions and docs/ARCHITECTURE.md, 6b). The
// time-of-use rules that size them by the hour's price are in tou_elastic.cpp.

#include <fmt/format.h>
#include <algorithm>

#include "engine/engine.h"
#include "engine/engine_util.h"

namespace frugal {

using engine_util::job_decision;
using engine_util::whole_slots;

void Engine::elastic_shrink(Seconds now) {
  // The first queued whole-GPU job; the walk left it waiting.
  const JobRuntime* blocked = nullptr;
  JobIdx bj = 0;
  for (const QueueKey& k : pending_) {
    const JobSpec& s = *jobs_[k.job].spec;
    if (s.gpus > 0 && !s.fractional()) {
      blocked = &jobs_[k.job];
      bj = k.job;
      break;
    }
  }
  if (!blocked) return;
  const JobSpec& bs = *blocked->spec;
  if (profile_.autoscale_first && can_add_capacity(bs)) return;  // a node is on its way
  // Shrink elastic jobs (lowest queue priority first) one GPU at a time, in place (a
  // prefix of their slots), tentatively, down to their minimum, until the blocked job fits.
  std::vector<std::pair<JobIdx, Placement>> shrunk;  // job, its smaller placement
  std::optional<Placement> fit;
  for (auto it = running_.rbegin(); it != running_.rend() && !fit; ++it) {
    const JobRuntime& r = jobs_[it->job];
    if (!elastic(r) || r.signalled() || r.size <= r.min_size()) continue;
    Placement held = r.placement;
    for (int n = r.size - 1; n >= r.min_size() && !fit; --n) {
      Placement smaller;
      smaller.model = held.model;
      smaller.slots.assign(held.slots.begin(), held.slots.begin() + n);
      state_.release(held, *r.spec);
      (void)state_.allocate(smaller, *r.spec);  // a subset of what it just held
      held = std::move(smaller);
      fit = try_place(state_, bs);
    }
    shrunk.emplace_back(it->job, std::move(held));
  }
  // Undo the tentative shrinks; apply them for real only if the blocked job then fits.
  for (const auto& [j, smaller] : shrunk) {
    state_.release(smaller, *jobs_[j].spec);
    (void)state_.allocate(jobs_[j].placement, *jobs_[j].spec);
  }
  if (!fit) return;
  for (auto& [j, smaller] : shrunk) {
    Placement to = smaller;
    if (Status st = migrate(j, std::move(to), now, options_.resize_cost_s); !st.ok()) {
      queued_.push_back(job_decision(Decision::Kind::kDefer, j, {}, now,
                                     "internal: resize rejected: " + st.error().message));
      return;
    }
    ++jobs_[j].resizes;
    out_.push_back(job_decision(Decision::Kind::kResize, j, std::move(smaller),
                                options_.resize_cost_s, fmt::format("shrunk for job {}", bs.id)));
  }
  std::optional<Placement> p = try_place(state_, bs);
  if (!p || !state_.allocate(*p, bs).ok()) return;  // the next cycle retries
  out_.push_back(job_decision(Decision::Kind::kStart, bj, *p, kNever, {}));
  start(bj, std::move(*p), now);
}

void Engine::elastic_grow(Seconds now) {
  if (running_elastic_ == 0) return;
  std::vector<JobIdx> cands;
  for (const QueueKey& k : running_) {
    const JobRuntime& r = jobs_[k.job];
    const bool resized_now = r.run_start == now && r.restart_s > 0;  // moved this instant
    if (elastic(r) && !r.signalled() && r.size < r.spec->max_gpus && !resized_now)
      cands.push_back(k.job);
  }
  for (JobIdx j : cands) {
    if (state_.free_whole_total() == 0) return;
    JobRuntime& r = jobs_[j];
    std::optional<Placement> p = grown_in_place(r);
    if (!p) p = grown_elsewhere(r);
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
    const Seconds grown_end =
        now + options_.resize_cost_s + (std::max(0.0, left) + lost) / speed_on(r, *p);
    if (!(grown_end < stay_end)) continue;
    Placement to = *p;
    if (Status st = migrate(j, std::move(to), now, options_.resize_cost_s); !st.ok()) continue;
    ++r.resizes;
    out_.push_back(job_decision(Decision::Kind::kResize, j, std::move(*p), options_.resize_cost_s,
                                "grown into idle GPUs of its nodes"));
  }
}

std::optional<Placement> Engine::grown_elsewhere(const JobRuntime& r) {
  // +tou: off-peak growth onto on-demand GPUs of the job's own region when it pays.
  const auto tou_growth_fits = [&](const JobRuntime& job, const Placement& p) {
    if (!profile_.tou_elastic || p.model != job.placement.model) return false;
    const uint32_t region =
        state_.spec().region_of(state_.spec().nodes[job.placement.slots.front().node]);
    const std::vector<NodeId> held = job.placement.nodes();
    for (NodeId n : p.nodes()) {
      if (state_.spec().region_of(state_.spec().nodes[n]) != region) return false;
      if (std::find(held.begin(), held.end(), n) != held.end()) continue;
      // A node it adds is one it fills: a node partly used by growth stays up for it.
      int on_node = 0;
      for (const Slot& s : p.slots) on_node += s.node == n ? 1 : 0;
      if (!pool_.on_demand(n) || on_node != state_.gpus(n)) return false;
    }
    return tou_growth_pays(job, whole_slots(p), now_, 0);
  };
  const auto paid_anyway = [&](const Placement& p) {
    const std::vector<NodeId> held = r.placement.nodes();
    for (NodeId n : p.nodes())
      if (pool_.autoscaled() && pool_.on_demand(n) &&
          std::find(held.begin(), held.end(), n) == held.end())
        return false;
    return true;
  };
  // Place it at the largest allowed size that fits with its own GPUs counted free.
  state_.release(r.placement, *r.spec);
  const int64_t most = std::min<int64_t>(r.spec->max_gpus, r.size + state_.free_whole_total());
  std::optional<Placement> found;
  // Without paid-anyway capacity, back up to its request (+tou: outside off-peak hours only
  // up to tou_peak_size, which tou_shrink would give back again).
  const int cap = profile_.tou_elastic ? tou_peak_size(r, now_) : r.spec->gpus;
  for (int n = static_cast<int>(most); n > r.size && !found; --n) {
    std::optional<Placement> p = place_sized(r, n);
    if (p && (n <= cap || paid_anyway(*p) || tou_growth_fits(r, *p))) found = std::move(p);
  }
  (void)state_.allocate(r.placement, *r.spec);
  return found;
}

std::optional<Placement> Engine::grown_in_place(const JobRuntime& r) const {
  Placement p = r.placement;
  int room = r.spec->max_gpus - r.size;
  for (NodeId n : r.placement.nodes()) {
    if (!state_.up(n)) continue;
    for (int g = 0; g < state_.gpus(n) && room > 0; ++g) {
      if (state_.free_milli(n, g) < kMilliPerGpu) continue;
      if (r.spec->gpu_memory_mib > 0 && state_.free_gpu_memory(n, g) < r.spec->gpu_memory_mib)
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

}  // namespace frugal
