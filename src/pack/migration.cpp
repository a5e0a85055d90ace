#include "pack/migration.h"

#include <algorithm>
#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include "pack/filter.h"
#include "pack/swap.h"

namespace frugal::pack {
namespace {

// A node that can be freed for the arrival: its cached victims (PlanCache).
struct Candidate {
  size_t r = 0;
  const PlanCache::Entry* plan = nullptr;
};

bool could_host(const NodeSpec& spec, const Pod& p) {
  return spec.num_gpu >= p.num_gpu && (p.num_gpu == 0 || spec.num_gpu > 0) &&
         model_ok(p.model_mask, spec.model) && spec.cpu >= p.cpu && spec.mem >= p.mem;
}

bool on_card(const Placed& q, int g) {
  for (int k = 0; k < q.cards.n; ++k)
    if (q.cards.ids[static_cast<size_t>(k)] == g) return true;
  return false;
}

// The fewest pods of node r to take off card g so that it has `milli` free (largest GPU share
// first, then most CPU, then earliest arrival); nullopt when even all of them are not enough.
std::optional<std::vector<size_t>> card_victims(const FillState& fs, size_t r, int g,
                                                int32_t milli) {
  const std::vector<Placed>& on = fs.on(r);
  std::vector<size_t> idx;
  for (size_t k = 0; k < on.size(); ++k)
    if (on_card(on[k], g)) idx.push_back(k);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const Pod& pa = fs.pod(on[a].pod);
    const Pod& pb = fs.pod(on[b].pod);
    return std::tuple(-pa.milli, -pa.cpu, on[a].pod) < std::tuple(-pb.milli, -pb.cpu, on[b].pod);
  });
  int32_t free = fs.node(r).free[static_cast<size_t>(g)];
  std::vector<size_t> out;
  for (size_t k : idx) {
    if (free >= milli) break;
    free += fs.pod(on[k].pod).milli;
    out.push_back(k);
  }
  if (free < milli) return std::nullopt;
  return out;
}

// Marks the pods of the num_gpu cheapest cards of node r (fewest victims, least milli, index).
bool mark_cards(const FillState& fs, size_t r, const Pod& p, std::vector<char>& take) {
  struct Card {
    size_t count;
    int64_t milli;
    int g;
    std::vector<size_t> victims;
  };
  std::vector<Card> cards;
  const std::vector<Placed>& on = fs.on(r);
  for (int g = 0; g < fs.node(r).num_gpu; ++g) {
    auto v = card_victims(fs, r, g, p.milli);
    if (!v) continue;
    int64_t milli = 0;
    for (size_t k : *v) milli += fs.pod(on[k].pod).total_milli();
    cards.push_back(Card{v->size(), milli, g, std::move(*v)});
  }
  if (cards.size() < static_cast<size_t>(p.num_gpu)) return false;
  std::sort(cards.begin(), cards.end(), [](const Card& a, const Card& b) {
    return std::tie(a.count, a.milli, a.g) < std::tie(b.count, b.milli, b.g);
  });
  for (size_t c = 0; c < static_cast<size_t>(p.num_gpu); ++c)
    for (size_t k : cards[c].victims) take[k] = 1;
  return true;
}

// While node r is short of `need` of a resource (`of` reads it from a pod) with the marked
// pods gone, marks an unmarked pod that holds some: the one with the least GPU milli (the
// easiest to place elsewhere), then the most of the resource, then the first.
template <class Of>
bool mark_for(const FillState& fs, size_t r, int64_t left, int64_t need, const Of& of,
              std::vector<char>& take) {
  const std::vector<Placed>& on = fs.on(r);
  for (size_t k = 0; k < on.size(); ++k)
    if (take[k]) left += of(fs.pod(on[k].pod));
  while (left < need) {
    size_t pick = on.size();
    auto key = [&](size_t k) {
      const Pod& q = fs.pod(on[k].pod);
      return std::tuple(q.total_milli(), -of(q));
    };
    for (size_t k = 0; k < on.size(); ++k)
      if (!take[k] && of(fs.pod(on[k].pod)) > 0 && (pick == on.size() || key(k) < key(pick)))
        pick = k;
    if (pick == on.size()) return false;
    take[pick] = 1;
    left += of(fs.pod(on[pick].pod));
  }
  return true;
}

// Whether some node takes sequence pod q as the cluster stands, memoised per pod class for one
// make_room call (a victim that fits nowhere cannot be moved).
class Placeable {
 public:
  Placeable(FillState& fs, bool gpu_rules)
      : fs_(&fs), gpu_rules_(gpu_rules), known_(fs.classes(), -1) {}
  bool operator()(size_t q) {
    int8_t& k = known_[fs_->pod_class(q)];
    if (k < 0) k = fs_->best(q, gpu_rules_, fs_->size()) != fs_->size() ? 1 : 0;
    return k == 1;
  }

 private:
  FillState* fs_;
  bool gpu_rules_;
  std::vector<int8_t> known_;
};

// Node r's victims for pod p (make_room's rule) into e, whatever the budget and whether each
// victim fits elsewhere: found is false when no set of its pods frees it for p.
void find_victims(const FillState& fs, size_t r, const Pod& p, PlanCache::Entry& e) {
  e.version = fs.node(r).version;
  e.mem = p.mem;
  e.found = false;
  e.victims.clear();
  e.moved_milli = 0;
  if (!could_host(fs.spec(r), p)) return;
  const NodeState& s = fs.node(r);
  const std::vector<Placed>& on = fs.on(r);
  std::vector<char> take(on.size(), 0);
  if (p.num_gpu > 0 && !mark_cards(fs, r, p, take)) return;
  if (!mark_for(
          fs, r, s.cpu_left, p.cpu, [](const Pod& q) { return q.cpu; }, take) ||
      !mark_for(
          fs, r, s.mem_left, p.mem, [](const Pod& q) { return q.mem; }, take))
    return;
  std::array<int32_t, kMaxGpus> free = s.free;
  for (size_t k = 0; k < on.size(); ++k) {
    if (!take[k]) continue;
    e.victims.push_back(static_cast<uint32_t>(k));
    const Pod& q = fs.pod(on[k].pod);
    e.moved_milli += q.total_milli();
    for (int j = 0; j < on[k].cards.n; ++j)
      free[static_cast<size_t>(on[k].cards.ids[static_cast<size_t>(j)])] += q.milli;
  }
  int room = 0;
  for (int g = 0; g < s.num_gpu; ++g) room += free[static_cast<size_t>(g)] >= p.milli;
  e.found = !e.victims.empty() && (p.num_gpu == 0 || room >= p.num_gpu);
}

// Node r as a candidate for pod i (its victims from the cache, found again when stale), or
// nullopt: none, more than `limit`, or one that no node takes as the cluster stands.
std::optional<Candidate> candidate(const FillState& fs, size_t r, size_t i, size_t limit,
                                   Placeable& placeable, PlanCache& plans) {
  const PlanCache::Entry& e = plans.victims(fs, r, i);
  if (!e.found || e.victims.size() > limit) return std::nullopt;
  for (uint32_t k : e.victims)
    if (!placeable(fs.on(r)[k].pod)) return std::nullopt;
  return Candidate{r, &e};
}

// Carries out candidate c for pod i; on failure puts everything back and returns 0.
int try_plan(FillState& fs, size_t i, const Candidate& c, PolicyRng& rng, bool gpu_rules) {
  const FillState::Totals totals = fs.totals();
  std::vector<FillState::Saved> saved{fs.save(c.r)};
  std::vector<uint32_t> victims = c.plan->victims;
  std::sort(victims.rbegin(), victims.rend());  // highest index first keeps the rest valid
  std::vector<Placed> moved;
  for (uint32_t k : victims) moved.push_back(fs.remove(c.r, k));
  std::sort(moved.begin(), moved.end(), [&](const Placed& a, const Placed& b) {
    const Pod& pa = fs.pod(a.pod);
    const Pod& pb = fs.pod(b.pod);
    return std::tuple(-pa.total_milli(), -pa.cpu, a.pod) <
           std::tuple(-pb.total_milli(), -pb.cpu, b.pod);
  });
  bool ok = true;
  for (const Placed& q : moved) {
    const size_t d = fs.best(q.pod, gpu_rules, c.r);
    if (d == fs.size()) {
      ok = false;
      break;
    }
    const bool seen =
        std::any_of(saved.begin(), saved.end(), [&](const auto& s) { return s.r == d; });
    if (!seen) saved.push_back(fs.save(d));
    fs.place(d, q.pod, rng, gpu_rules);
  }
  if (ok && fits(fs.node(c.r), fs.pod(i))) {
    fs.place(c.r, i, rng, gpu_rules);
    if (worth_moving(fs, i, saved)) return static_cast<int>(moved.size());
  }
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) fs.restore(*it);
  fs.set_totals(totals);
  return 0;
}

}  // namespace

bool worth_moving(const FillState& fs, size_t i, std::span<const FillState::Saved> saved) {
  return fs.frag_growth(saved) <= static_cast<double>(fs.pod(i).total_milli());
}

const PlanCache::Entry& PlanCache::victims(const FillState& fs, size_t r, size_t i) {
  std::vector<Entry>& row = rows_[fs.pod_class(i)];
  if (row.empty()) row.resize(nodes_);
  Entry& e = row[r];
  const Pod& p = fs.pod(i);
  if (e.version != fs.node(r).version || e.mem != p.mem) find_victims(fs, r, p, e);
  return e;
}

int make_room(FillState& fs, size_t i, int64_t budget, PolicyRng& rng, bool gpu_rules,
              PlanCache& plans) {
  const auto limit = static_cast<size_t>(std::min<int64_t>(budget, kMaxVictims));
  std::vector<Candidate> cands;
  Placeable placeable(fs, gpu_rules);
  for (size_t r = 0; r < fs.size(); ++r)
    if (auto c = candidate(fs, r, i, limit, placeable, plans)) cands.push_back(*c);
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    return std::tuple(a.plan->victims.size(), a.plan->moved_milli, a.r) <
           std::tuple(b.plan->victims.size(), b.plan->moved_milli, b.r);
  });
  const size_t tries = std::min<size_t>(cands.size(), kMaxTries);
  for (size_t t = 0; t < tries; ++t)
    if (const int moved = try_plan(fs, i, cands[t], rng, gpu_rules); moved > 0) return moved;
  return swap_room(fs, i, budget, rng, gpu_rules);
}

}  // namespace frugal::pack
