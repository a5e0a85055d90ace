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

using ByShape = std::map<std::pair<int, int32_t>, std::vector<Where>>;

// Placed pods by GPU shape (num_gpu, milli), for the partners.
ByShape by_shape(const FillState& fs) {
  ByShape out;
  for (size_t s = 0; s < fs.size(); ++s)
    for (size_t k = 0; k < fs.on(s).size(); ++k) {
      const Pod& q = fs.pod(fs.on(s)[k].pod);
      out[{q.num_gpu, q.milli}].push_back(Where{s, k});
    }
  return out;
}

// Every pair (V on r, W elsewhere) that gives node r the dc CPU and dm memory it lacks.
void add_pairs(const FillState& fs, size_t r, int64_t dc, int64_t dm, const ByShape& shapes,
               std::vector<Pair>& pairs) {
  const int r_model = fs.spec(r).model;
  for (size_t v = 0; v < fs.on(r).size(); ++v) {
    const Pod& pv = fs.pod(fs.on(r)[v].pod);
    const auto it = shapes.find({pv.num_gpu, pv.milli});
    if (pv.cpu < dc || pv.mem < dm || it == shapes.end()) continue;
    for (const Where& w : it->second) {
      if (w.node == r) continue;
      const Pod& pw = fs.pod(fs.on(w.node)[w.k].pod);
      const int64_t xc = pv.cpu - pw.cpu, xm = pv.mem - pw.mem;
      const NodeState& s = fs.node(w.node);
      if (xc < dc || xm < dm || s.cpu_left < xc || s.mem_left < xm) continue;
      if (model_ok(pw.model_mask, r_model) && model_ok(pv.model_mask, fs.spec(w.node).model))
        pairs.push_back(Pair{xc, xm, r, v, w.node, w.k});
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
  const ByShape shapes = by_shape(fs);
  std::vector<Pair> pairs;
  for (const auto& [r, dc, dm] : hosts) add_pairs(fs, r, dc, dm, shapes, pairs);
  const size_t tries = std::min<size_t>(pairs.size(), kMaxSwapTries);
  std::partial_sort(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(tries), pairs.end(),
                    [](const Pair& a, const Pair& b) { return a.key() < b.key(); });
  for (size_t t = 0; t < tries; ++t)
    if (try_pair(fs, i, pairs[t], rng, gpu_rules)) return 2;
  return 0;
}

}  // namespace frugal::pack
