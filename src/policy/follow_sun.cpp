#include "policy/follow_sun.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cost/transfer.h"
#include "policy/profile.h"
#include "policy/region_cost.h"

namespace frugal {
namespace {

class SunFilter final : public Filter {
 public:
  explicit SunFilter(std::unique_ptr<Filter> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return "sun(" + inner_->name() + ")"; }

  Candidates filter(const CycleView& v, const JobSpec& job) const override {
    Candidates c = inner_->filter(v, job);
    const ClusterState& st = v.cluster();
    const size_t regions = st.spec().regions.size();
    if (!job.movable || job.gpus <= 0 || job.fractional() || c.models.empty() || regions < 2)
      return c;
    const RegionCost& rc = region_cost(v, this);
    const double inf = std::numeric_limits<double>::infinity();
    const Seconds now = v.now();
    const Seconds est = job.runtime_estimate();
    const int64_t home = data_home(st.spec(), job);
    c.regions.assign(c.models.size(), {});
    std::vector<double> best(regions);
    for (size_t i = 0; i < c.models.size(); ++i) {
      const GpuModelId m = c.models[i];
      const double speed = v.speed(job, m);
      if (!(speed > 0)) continue;
      std::fill(best.begin(), best.end(), inf);
      for (uint32_t centre = 0; centre < st.centre_count(); ++centre) {
        if (st.centre_model(centre) != m || rc.max_node_gpus(centre) < job.gpus) continue;
        const double usd =
            rc.marginal_usd(centre, job.gpus, job.utilization, now, now + est / speed);
        double& b = best[rc.region_of_centre(centre)];
        b = std::min(b, usd);
      }
      std::vector<std::pair<double, uint32_t>> order;
      for (uint32_t r = 0; r < regions; ++r) {
        if (best[r] == inf) continue;
        const double move =
            home >= 0 ? transfer_usd(st.spec(), job, static_cast<uint32_t>(home), r, false) : 0.0;
        order.emplace_back(best[r] + move, r);
      }
      std::sort(order.begin(), order.end());
      for (const auto& [usd, r] : order) c.regions[i].push_back(r);
    }
    return c;
  }

 private:
  std::unique_ptr<Filter> inner_;
};

class SunPlacer final : public Placer {
 public:
  explicit SunPlacer(std::unique_ptr<Placer> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return "sun(" + inner_->name() + ")"; }

  std::optional<Placement> place(const ClusterState& st, const JobSpec& job,
                                 const Candidates& c) const override {
    std::optional<Placement> p = inner_->place(st, job, c);
    if (!p || c.regions.size() != c.models.size() || !sun_placeable(st, job, p->model, job.gpus))
      return p;
    // The inner placer chose the model; the cheapest region with room for it wins.
    const size_t i = static_cast<size_t>(std::find(c.models.begin(), c.models.end(), p->model) -
                                         c.models.begin());
    if (i == c.models.size() || p->slots.empty()) return p;
    // ... unless that takes a node with more wholly free GPUs than the inner placer's
    // choice: breaking up a free node for a cheaper region strands gangs (measured:
    // docs/EXPERIMENTS.md, "Follow-the-sun").
    const NodeId chosen = p->slots.front().node;
    const uint32_t home = node_region(st, chosen);
    for (uint32_t r : c.regions[i]) {
      if (r == home) return p;
      std::optional<Placement> q = place_in_region(st, job, p->model, r, job.gpus);
      if (q && st.free_whole(q->slots.front().node) <= st.free_whole(chosen)) return q;
    }
    return p;
  }

 private:
  std::unique_ptr<Placer> inner_;
};

class SunRelay final : public Relay {
 public:
  explicit SunRelay(SunOptions o) : opt_(o) {}
  std::string name() const override { return "sun"; }

  Seconds next_tick(const CycleView& v) const override {
    const double epoch = static_cast<double>(v.cluster().spec().epoch_unix_s);
    return std::floor((epoch + v.now()) / 3600.0 + 1) * 3600.0 - epoch;
  }

  double provision_rank(const CycleView& v, NodeId n) const override {
    const ClusterState& st = v.cluster();
    return region_cost(v, this).marginal_usd(st.centre_of(n), 1, 1, v.now(), v.now() + 3600);
  }

  std::optional<Move> relay(const CycleView& v, JobIdx j) const override {
    const JobRuntime& r = v.job(j);
    const JobSpec& s = *r.spec;
    const Seconds now = v.now();
    if (r.state != JobState::kRunning || !s.movable || r.signalled() || r.elastic() ||
        s.gpus <= 0 || s.fractional())
      return std::nullopt;
    if (r.run_start == now && r.restart_s > 0) return std::nullopt;  // moved this instant
    const std::vector<NodeId> nodes = r.placement.nodes();
    if (nodes.size() != 1) return std::nullopt;
    const Seconds end = r.expected_end(now);
    if (end - now < opt_.min_remaining_s) return std::nullopt;
    const ClusterState& st = v.cluster();
    const RegionCost& rc = region_cost(v, this);
    const NodeId here = nodes.front();
    const uint32_t from = node_region(st, here);
    const double stay = rc.marginal_usd(st.centre_of(here), s.gpus, s.utilization, now, end);
    // After a move the work since the last checkpoint is redone, after the restart.
    const double kept_ref = r.progress_ref_s + r.kept_at(now) * r.speed;
    const double left_ref = std::max(0.0, s.runtime_estimate() - kept_ref);
    const Seconds run = v.migration_cost_s() + left_ref / r.speed;
    std::optional<Placement> best;
    double best_usd = 0;
    for (uint32_t to = 0; to < st.spec().regions.size(); ++to) {
      if (to == from) continue;
      std::optional<Placement> p = place_in_region(st, s, r.placement.model, to, s.gpus, here);
      if (!p) continue;
      const double usd = rc.marginal_usd(st.centre_of(p->slots.front().node), s.gpus, s.utilization,
                                         now, now + run) +
                         transfer_usd(st.spec(), s, from, to, kept_ref > 0);
      if (!best || usd < best_usd) {
        best = std::move(p);
        best_usd = usd;
      }
    }
    if (!best || !(stay - best_usd > std::max(opt_.min_gain_usd, opt_.min_gain_frac * stay)))
      return std::nullopt;
    return Move{j, std::move(*best)};
  }

 private:
  SunOptions opt_;
};

}  // namespace

std::unique_ptr<Filter> make_sun_filter(std::unique_ptr<Filter> inner) {
  return std::make_unique<SunFilter>(std::move(inner));
}

std::unique_ptr<Placer> make_sun_placer(std::unique_ptr<Placer> inner) {
  return std::make_unique<SunPlacer>(std::move(inner));
}

std::unique_ptr<Relay> make_sun_relay(SunOptions options) {
  return std::make_unique<SunRelay>(options);
}

void add_follow_sun(Profile& p, SunOptions options) {
  p.filter = make_sun_filter(std::move(p.filter));
  p.placer = make_sun_placer(std::move(p.placer));
  p.relay = make_sun_relay(options);
}

}  // namespace frugal
