#include "pack/swap.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "pack/filter.h"
#include "pack/migration.h"

namespace frugal::pack {
namespace {

struct Where {
  size_t node = 0;
  size_t k = 0;  // index in fs.on(node)
};

struct Pair {
  int64_t dcpu = 0, dmem = 0;  // what V carries over W
  size_t r = 0, v = 0, s = 0, w = 0;
  auto key() const { return std::tie(dcpu, dmem, r, v, s, w); }
};

// Node r could take pod p on its cards and pod count, with dc CPU and dm memory more (either
// may be ≤ 0: a surplus; at least one is > 0).
bool cards_ok(const FillState& fs, size_t r, const Pod& p, int64_t& dc, int64_t& dm) {
  const NodeState& n = fs.node(r);
  if (!gpu_fits(n, p) || n.pods >= kMaxPodsPerNode) return false;
  dc = p.cpu - n.cpu_left;
  dm = p.mem - n.mem_left;
  return dc > 0 || dm > 0;
}

// Tries one pair; on failure restores every touched node and the totals.
bool try_pair(FillState& fs, size_t i, const Pair& c, PolicyRng& rng, bool gpu_rules) {
  const FillState::Totals totals = fs.totals();
  const std::array<FillState::Saved, 2> saved{fs.save(c.r), fs.save(c.s)};
  const FillState::Saved& sr = saved[0];
  const FillState::Saved& ss = saved[1];
  const Placed v = fs.remove(c.r, c.v);
  const Placed w = fs.remove(c.s, c.w);
  bool ok = fits(fs.node(c.r), fs.pod(w.pod)) && fits(fs.node(c.s), fs.pod(v.pod));
  if (ok) {
    fs.place(c.r, w.pod, rng, gpu_rules);
    fs.place(c.s, v.pod, rng, gpu_rules);
    ok = fits(fs.node(c.r), fs.pod(i));
  }
  if (ok) {
    fs.place(c.r, i, rng, gpu_rules);
    if (worth_moving(fs, i, saved)) return true;
  }
  fs.restore(ss);
  fs.restore(sr);
  fs.set_totals(totals);
  return false;
}

// A placed pod W as a partner: its CPU (the list is sorted by it, most first) and place.
struct Partner {
  int64_t cpu = 0;
  Where at;
};
using ByShape = std::map<std::pair<int, int32_t>, std::vector<Partner>>;

// Placed pods by GPU shape (num_gpu, milli), each list by CPU, most first; only those on
// nodes with at least `cpu` CPU and `mem` memory left (a partner's node must take what V
// carries over W, at least the shortfall of the host that lacks least).
ByShape by_shape(const FillState& fs, int64_t cpu, int64_t mem) {
  ByShape out;
  for (size_t s = 0; s < fs.size(); ++s) {
    if (fs.node(s).cpu_left < cpu || fs.node(s).mem_left < mem) continue;
    for (size_t k = 0; k < fs.on(s).size(); ++k) {
      const Pod& q = fs.pod(fs.on(s)[k].pod);
      out[{q.num_gpu, q.milli}].push_back(Partner{q.cpu, Where{s, k}});
    }
  }
  for (auto& [shape, list] : out)
    std::stable_sort(list.begin(), list.end(),
                     [](const Partner& a, const Partner& b) { return a.cpu > b.cpu; });
  return out;
}

// The kMaxSwapTries smallest pairs by key, ascending.
class BestPairs {
 public:
  bool full() const { return best_.size() == static_cast<size_t>(kMaxSwapTries); }
  // The CPU carried over by the worst kept pair (only when full()).
  int64_t worst_dcpu() const { return best_.back().dcpu; }
  void offer(const Pair& p) {
    if (full() && !(p.key() < best_.back().key())) return;
    if (full()) best_.pop_back();
    const auto at =
        std::upper_bound(best_.begin(), best_.end(), p,
                         [](const Pair& a, const Pair& b) { return a.key() < b.key(); });
    best_.insert(at, p);
  }
  const std::vector<Pair>& pairs() const { return best_; }

 private:
  std::vector<Pair> best_;
};

// Offers every pair (V on r, W elsewhere) that gives node r the dc CPU and dm memory it lacks.
// A shape's partners come by CPU, most first, so the CPU V carries over W only grows along the
// list: once it exceeds the worst kept pair's, no later W can be kept.
void add_pairs(const FillState& fs, size_t r, int64_t dc, int64_t dm, const ByShape& shapes,
               BestPairs& best) {
  const int r_model = fs.spec(r).model;
  for (size_t v = 0; v < fs.on(r).size(); ++v) {
    const Pod& pv = fs.pod(fs.on(r)[v].pod);
    const auto it = shapes.find({pv.num_gpu, pv.milli});
    if (pv.cpu < dc || pv.mem < dm || it == shapes.end()) continue;
    const std::vector<Partner>& list = it->second;
    // The first partner with cpu(W) ≤ cpu(V) − dc.
    auto w_it = std::partition_point(list.begin(), list.end(),
                                     [&](const Partner& w) { return w.cpu > pv.cpu - dc; });
    for (; w_it != list.end(); ++w_it) {
      const Where& w = w_it->at;
      const int64_t xc = pv.cpu - w_it->cpu;
      if (best.full() && xc > best.worst_dcpu()) break;
      if (w.node == r) continue;
      const Pod& pw = fs.pod(fs.on(w.node)[w.k].pod);
      const int64_t xm = pv.mem - pw.mem;
      const NodeState& s = fs.node(w.node);
      if (xm < dm || s.cpu_left < xc || s.mem_left < xm) continue;
      if (model_ok(pw.model_mask, r_model) && model_ok(pv.model_mask, fs.spec(w.node).model))
        best.offer(Pair{xc, xm, r, v, w.node, w.k});
    }
  }
}

}  // namespace

int swap_room(FillState& fs, size_t i, int64_t budget, PolicyRng& rng, bool gpu_rules) {
  if (budget < 2) return 0;
  const Pod& p = fs.pod(i);
  // Receiving nodes and what they lack.
  std::vector<std::tuple<size_t, int64_t, int64_t>> hosts;
  for (size_t r = 0; r < fs.size(); ++r) {
    int64_t dc = 0, dm = 0;
    if (model_ok(p.model_mask, fs.spec(r).model) && cards_ok(fs, r, p, dc, dm))
      hosts.emplace_back(r, dc, dm);
  }
  if (hosts.empty()) return 0;
  // A pair for host r needs its partner's node to have r's shortfall left (dc, dm; ≤ 0: none).
  int64_t least_dc = std::get<1>(hosts.front()), least_dm = std::get<2>(hosts.front());
  for (const auto& [r, dc, dm] : hosts) {
    least_dc = std::min(least_dc, dc);
    least_dm = std::min(least_dm, dm);
  }
  const ByShape shapes =
      by_shape(fs, std::max<int64_t>(least_dc, 0), std::max<int64_t>(least_dm, 0));
  BestPairs best;
  for (const auto& [r, dc, dm] : hosts) add_pairs(fs, r, dc, dm, shapes, best);
  for (const Pair& c : best.pairs())
    if (try_pair(fs, i, c, rng, gpu_rules)) return 2;
  return 0;
}

}  // namespace frugal::pack
