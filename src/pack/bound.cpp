#include "pack/bound.h"

#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "pack/card_patterns.h"
#include "pack/discretise.h"
#include "pack/ilp_dual_bound.h"

namespace frugal::pack {
namespace {

using PodKey =
    std::tuple<int64_t, int64_t, int, int32_t, uint64_t>;  // cpu, mem, cards, milli, mask
using NodeKey = std::tuple<int64_t, int64_t, int, int>;    // cpu, mem, cards, model

PodKey pod_key(const Pod& p) {
  return {p.cpu, p.mem, p.num_gpu, p.milli, p.model_mask};
}

struct NodeClass {
  NodeSpec spec;
  int64_t count = 0;
};

bool hosts(const NodeSpec& n, const Pod& p) {
  return n.num_gpu >= p.num_gpu && model_ok(p.model_mask, n.model) && n.cpu >= p.cpu &&
         n.mem >= p.mem && p.milli <= kMilli;
}

// The card weight w_α(m) of bound.h.
double card_weight(int32_t m, int32_t alpha) {
  if (m > kMilli - alpha) return kMilli;
  if (m >= alpha) return m;
  return 0;
}

// The most pods like p one node of `n`'s kind can hold alone (cpu, memory, cards, pod count).
int64_t most_per_node(const NodeSpec& n, const Pod& p) {
  int64_t k = kMaxPodsPerNode;
  if (p.cpu > 0) k = std::min(k, n.cpu / p.cpu);
  if (p.mem > 0) k = std::min(k, n.mem / p.mem);
  if (p.milli > 0) k = std::min<int64_t>(k, (n.num_gpu / p.num_gpu) * (kMilli / p.milli));
  return k;
}

// A: 0, the sharing sizes up to 500, and 1001 − m for the sharing sizes above 500.
std::vector<int32_t> alphas(const std::vector<Pod>& pods) {
  std::set<int32_t> a{0};
  for (const Pod& p : pods) {
    if (p.milli <= 0 || p.milli >= kMilli) continue;
    a.insert(p.milli <= kMilli / 2 ? p.milli : kMilli + 1 - p.milli);
  }
  return {a.begin(), a.end()};
}

}  // namespace

// The card-pattern rows of one GPU model (bound.h): its cards, its sharing sizes, and the
// rows of the pattern LP that hold them.
struct PatternGroup {
  int64_t cards = 0;
  std::vector<int32_t> sizes;  // ascending
  int card_row = -1;
  int first_size_row = -1;  // the size rows follow in `sizes` order
};

struct AllocBound::Impl {
  std::map<PodKey, int> class_of;
  std::vector<Pod> pods;  // one per class
  ClpSimplex lp;          // the class LP (for the integer bound: its columns are pod counts)
  ClpSimplex plp;         // the class LP with the card-pattern rows and columns
  std::vector<PatternGroup> groups;
  int count_rows = 0;  // rows 0..classes-1 are the count rows (in both)
  bool kept = false;   // a call with `keep` has set count row lower bounds and added slacks
  int first_slack = -1, slacks = 0;  // the slack columns (add_slacks)

  // One column per size row of the pattern LP, at a cost no pod's value reaches: the rows
  // stay feasible while the patterns generated so far cannot hold the pods a `keep` asks for.
  void add_slacks() {
    constexpr double kPenalty = 1e6;  // milli; every pod is worth at most 8,000
    first_slack = plp.getNumCols();
    for (const PatternGroup& g : groups)
      for (size_t i = 0; i < g.sizes.size(); ++i) {
        const int row = g.first_size_row + static_cast<int>(i);
        const double v = -1.0;
        plp.addColumn(1, &row, &v, 0.0, COIN_DBL_MAX, -kPenalty);
        ++slacks;
      }
  }
  // Σ of the slack columns in the last solution (0 before add_slacks).
  double slack_used() const {
    const double* x = plp.primalColumnSolution();
    double sum = 0;
    for (int j = 0; j < slacks; ++j) sum += x[first_slack + j];
    return sum;
  }

  void add_pattern(const PatternGroup& g, const CardPattern& p) {
    std::vector<int> rows{g.card_row};
    std::vector<double> vals{1.0};
    for (size_t i = 0; i < g.sizes.size(); ++i)
      if (p.count[i] > 0) {
        rows.push_back(g.first_size_row + static_cast<int>(i));
        vals.push_back(-static_cast<double>(p.count[i]));
      }
    plp.addColumn(static_cast<int>(rows.size()), rows.data(), vals.data(), 0.0, COIN_DBL_MAX, 0.0);
  }
  Result<double> solve_patterns();
  void build_patterns(const std::map<NodeKey, NodeClass>& by_key,
                      const std::vector<std::pair<const NodeClass*, int>>& col_of, int nrows);
};

// Column generation over the card patterns: after the LP over the patterns so far, each
// group's most valuable pattern at the LP's dual prices (best_card_pattern) enters while its
// reduced cost is positive (beyond a tolerance). The value returned is the LP's plus, per
// group, its cards times its best reduced cost where that is positive: the Lagrangian bound
// of column generation (the card row caps a group's patterns at its cards), an upper bound on
// the LP over every pattern whether the loop converged, stopped at the tolerance or at the
// round limit.
Result<double> AllocBound::Impl::solve_patterns() {
  constexpr int kMaxRounds = 200;
  constexpr double kEps = 1e-7;
  plp.dual();
  for (int round = 0;; ++round) {
    if (kept && plp.isProvenPrimalInfeasible())
      return Error{"bound: no placement holds the kept pods (the pattern LP is infeasible)"};
    if (!plp.isProvenOptimal()) return Error{"bound: the pattern LP was not solved to optimality"};
    const double* dual = plp.dualRowSolution();
    double slack = 0;
    bool added = false;
    std::vector<double> value;
    for (const PatternGroup& g : groups) {
      value.assign(g.sizes.size(), 0.0);
      for (size_t i = 0; i < g.sizes.size(); ++i)
        value[i] = dual[g.first_size_row + static_cast<int>(i)];
      CardPattern p = best_card_pattern(g.sizes, value);
      const double rc = p.value - dual[g.card_row];
      if (rc <= 0) continue;
      slack += static_cast<double>(g.cards) * rc;  // counted even when too small to add
      if (rc > kEps * std::max(1.0, std::abs(dual[g.card_row])) && round < kMaxRounds) {
        add_pattern(g, p);
        added = true;
      }
    }
    if (!added) return plp.objectiveValue() + slack;
    plp.primal(1);
  }
}

// The pattern LP (bound.h): the class LP plus, per GPU model g, a card row (whole-card pods'
// cards plus the patterned cards ≤ g's cards) and a size row per sharing size s (the sharing
// pods of size s on g's nodes ≤ the slots of size s in g's patterns), and one pattern column
// per size to start with.
void AllocBound::Impl::build_patterns(const std::map<NodeKey, NodeClass>& by_key,
                                      const std::vector<std::pair<const NodeClass*, int>>& col_of,
                                      int nrows) {
  Impl& m = *this;
  m.plp = m.lp;
  m.plp.setLogLevel(0);
  std::map<int, size_t> group_of;  // model -> index into m.groups
  for (const auto& [key, nc] : by_key) {
    auto [it, fresh] = group_of.emplace(nc.spec.model, m.groups.size());
    if (fresh) m.groups.emplace_back();
    m.groups[it->second].cards += nc.count * nc.spec.num_gpu;
  }
  std::vector<std::set<int32_t>> sizes(m.groups.size());
  for (const auto& [nc, c] : col_of) {
    const Pod& p = m.pods[static_cast<size_t>(c)];
    if (p.sharing()) sizes[group_of.at(nc->spec.model)].insert(p.milli);
  }
  int row = nrows;
  for (size_t g = 0; g < m.groups.size(); ++g) {
    PatternGroup& pg = m.groups[g];
    pg.sizes.assign(sizes[g].begin(), sizes[g].end());
    pg.card_row = row++;
    pg.first_size_row = row;
    row += static_cast<int>(pg.sizes.size());
  }
  // The rows, built row-wise over the class LP's columns.
  std::vector<std::vector<std::pair<int, double>>> entries(static_cast<size_t>(row - nrows));
  for (size_t j = 0; j < col_of.size(); ++j) {
    const auto& [nc, c] = col_of[j];
    const Pod& p = m.pods[static_cast<size_t>(c)];
    const PatternGroup& pg = m.groups[group_of.at(nc->spec.model)];
    if (p.sharing()) {
      const auto at =
          std::lower_bound(pg.sizes.begin(), pg.sizes.end(), p.milli) - pg.sizes.begin();
      entries[static_cast<size_t>(pg.first_size_row + at - nrows)].emplace_back(static_cast<int>(j),
                                                                                1.0);
    } else {
      entries[static_cast<size_t>(pg.card_row - nrows)].emplace_back(static_cast<int>(j),
                                                                     p.num_gpu);
    }
  }
  std::vector<double> lo, hi, val;
  std::vector<int> cols;
  std::vector<CoinBigIndex> starts{0};
  for (size_t r = 0; r < entries.size(); ++r) {
    lo.push_back(-COIN_DBL_MAX);
    hi.push_back(0.0);
    for (const auto& [j, v] : entries[r]) {
      cols.push_back(j);
      val.push_back(v);
    }
    starts.push_back(static_cast<CoinBigIndex>(cols.size()));
  }
  for (const PatternGroup& pg : m.groups)
    hi[static_cast<size_t>(pg.card_row - nrows)] = static_cast<double>(pg.cards);
  m.plp.addRows(static_cast<int>(entries.size()), lo.data(), hi.data(), starts.data(), cols.data(),
                val.data());
  for (const PatternGroup& pg : m.groups)
    for (size_t i = 0; i < pg.sizes.size(); ++i)
      m.add_pattern(pg, single_size_pattern(pg.sizes, i));
}

AllocBound::AllocBound(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& universe)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  std::map<NodeKey, NodeClass> by_key;
  for (const NodeSpec& n : nodes) {
    if (n.num_gpu <= 0) continue;
    NodeClass& c = by_key[{n.cpu, n.mem, n.num_gpu, n.model}];
    c.spec = n;
    c.count += 1;
  }
  for (const Pod& p : universe) {
    if (p.total_milli() <= 0 || m.class_of.count(pod_key(p))) continue;
    const bool any = std::any_of(by_key.begin(), by_key.end(),
                                 [&](const auto& kv) { return hosts(kv.second.spec, p); });
    if (!any) continue;
    m.class_of.emplace(pod_key(p), static_cast<int>(m.pods.size()));
    m.pods.push_back(p);
  }
  const std::vector<int32_t> alpha = alphas(m.pods);
  const int ncls = static_cast<int>(m.pods.size());
  const int per_node = 3 + static_cast<int>(alpha.size());  // cpu, mem, pods, α rows
  const int nrows = ncls + per_node * static_cast<int>(by_key.size());
  std::vector<double> rowub(static_cast<size_t>(nrows), 0.0);
  std::vector<double> obj, value, colub;
  std::vector<int> index;
  std::vector<CoinBigIndex> start{0};
  std::vector<std::pair<const NodeClass*, int>> col_of;  // per column: node class, pod class
  int t = 0;
  for (const auto& [key, nc] : by_key) {
    const int base = ncls + per_node * t;
    const auto n = static_cast<double>(nc.count);
    rowub[static_cast<size_t>(base)] = n * static_cast<double>(nc.spec.cpu);
    rowub[static_cast<size_t>(base + 1)] = n * static_cast<double>(nc.spec.mem);
    rowub[static_cast<size_t>(base + 2)] = n * kMaxPodsPerNode;
    for (size_t a = 0; a < alpha.size(); ++a)
      rowub[static_cast<size_t>(base + 3) + a] = n * nc.spec.num_gpu * kMilli;
    for (int c = 0; c < ncls; ++c) {
      const Pod& p = m.pods[static_cast<size_t>(c)];
      if (!hosts(nc.spec, p)) continue;
      auto add = [&](int row, double v) {
        if (v == 0) return;
        index.push_back(row);
        value.push_back(v);
      };
      add(c, 1);
      add(base, static_cast<double>(p.cpu));
      add(base + 1, static_cast<double>(p.mem));
      add(base + 2, 1);
      for (size_t a = 0; a < alpha.size(); ++a)
        add(base + 3 + static_cast<int>(a), p.num_gpu * card_weight(p.milli, alpha[a]));
      obj.push_back(static_cast<double>(p.total_milli()));
      col_of.emplace_back(&nc, c);
      colub.push_back(n * static_cast<double>(most_per_node(nc.spec, p)));
      start.push_back(static_cast<CoinBigIndex>(index.size()));
    }
    ++t;
  }
  const int ncols = static_cast<int>(obj.size());
  std::vector<double> rowlb(static_cast<size_t>(nrows), -COIN_DBL_MAX);
  std::vector<double> collb(static_cast<size_t>(ncols), 0.0);
  CoinPackedMatrix matrix(true, nrows, ncols, static_cast<CoinBigIndex>(index.size()), value.data(),
                          index.data(), start.data(), nullptr);
  m.lp.setLogLevel(0);
  m.lp.loadProblem(matrix, collb.data(), colub.data(), obj.data(), rowlb.data(), rowub.data());
  m.lp.setOptimizationDirection(-1);  // maximise
  m.count_rows = ncls;
  m.build_patterns(by_key, col_of, nrows);
}

AllocBound::~AllocBound() = default;

int AllocBound::class_of(const Pod& pod) const {
  auto it = impl_->class_of.find(pod_key(pod));
  return it == impl_->class_of.end() ? -1 : it->second;
}

size_t AllocBound::classes() const {
  return impl_->pods.size();
}

Result<int64_t> AllocBound::max_alloc_milli(const std::vector<int64_t>& count) {
  return max_alloc_milli(count, {});
}

Result<int64_t> AllocBound::max_alloc_milli(const std::vector<int64_t>& count,
                                            const std::vector<int64_t>& keep) {
  Impl& m = *impl_;
  if (count.size() != m.pods.size()) return Error{"bound: one count per pod class expected"};
  if (!keep.empty() && keep.size() != m.pods.size())
    return Error{"bound: one kept count per pod class expected"};
  for (size_t c = 0; c < keep.size(); ++c)
    if (keep[c] < 0 || keep[c] > count[c])
      return Error{"bound: a kept count is negative or above its class's count"};
  if (!keep.empty() && !m.kept) {
    m.add_slacks();
    m.kept = true;
  }
  int64_t all = 0;
  for (int c = 0; c < m.count_rows; ++c) {
    const int64_t k = count[static_cast<size_t>(c)];
    m.lp.setRowUpper(c, static_cast<double>(k));
    m.plp.setRowUpper(c, static_cast<double>(k));
    if (m.kept)
      m.plp.setRowLower(
          c, keep.empty() ? -COIN_DBL_MAX : static_cast<double>(keep[static_cast<size_t>(c)]));
    all += k * m.pods[static_cast<size_t>(c)].total_milli();
  }
  if (m.count_rows == 0 || all == 0) return int64_t{0};
  auto solved = m.solve_patterns();
  if (!solved.ok()) return solved.error();
  // Slack left when the column generation stops: the kept pods fit no card patterns found (when
  // it converged: none at all), so no placement is known to hold them.
  if (!keep.empty() && m.slack_used() > 1e-6)
    return Error{"bound: no placement holds the kept pods (they fit no set of card patterns)"};
  // Any placement allocates a whole number of milli, at most the LP optimum: so its floor
  // (with room for the solver's tolerances) bounds it too; never above what arrived.
  const double v = solved.value();
  const auto up = static_cast<int64_t>(std::floor(v + 1e-6 * std::max(1.0, std::abs(v))));
  return std::min(all, up);
}

Result<int64_t> AllocBound::max_alloc_milli_ilp(const std::vector<int64_t>& count, double seconds) {
  auto lp = max_alloc_milli(count);
  if (!lp.ok() || impl_->count_rows == 0) return lp;
  int64_t all = 0;
  for (size_t c = 0; c < count.size(); ++c) all += count[c] * impl_->pods[c].total_milli();
  if (lp.value() >= all) return lp;  // everything fits: nothing to tighten
  // Cbc works on the class LP (every column a pod count): the pattern LP's generated columns
  // are only some of the patterns, so its integer version would not bound every placement.
  impl_->lp.dual();
  if (!impl_->lp.isProvenOptimal()) return lp;
  auto b = cbc_dual_bound(impl_->lp, seconds);
  if (!b.ok()) return lp;
  const double v = b.value();
  const auto up = static_cast<int64_t>(std::floor(v + 1e-6 * std::max(1.0, std::abs(v))));
  return std::min(lp.value(), up);
}

namespace {

// The pods of a prefix of the sequence as counts per class of `lp`.
class PrefixCounts {
 public:
  PrefixCounts(const AllocBound& lp, const std::vector<Pod>& seq)
      : lp_(&lp), seq_(&seq), count_(lp.classes(), 0) {}
  // The counts of pods 0..end-1.
  const std::vector<int64_t>& upto(size_t end) {
    for (; at_ < end; ++at_) step(at_, +1);
    for (; at_ > end; --at_) step(at_ - 1, -1);
    return count_;
  }

 private:
  void step(size_t i, int64_t d) {
    const int c = lp_->class_of((*seq_)[i]);
    if (c >= 0) count_[static_cast<size_t>(c)] += d;
  }
  const AllocBound* lp_;
  const std::vector<Pod>* seq_;
  std::vector<int64_t> count_;
  size_t at_ = 0;
};

}  // namespace

Result<std::vector<int64_t>> bound_per_event(const std::vector<NodeSpec>& nodes,
                                             const std::vector<Pod>& sequence,
                                             const BoundOptions& options) {
  AllocBound lp(nodes, sequence);
  int64_t total_gpus = 0;
  for (const NodeSpec& n : nodes) total_gpus += n.num_gpu;
  std::vector<int64_t> arrived(sequence.size());
  int64_t sum = 0;
  for (size_t i = 0; i < sequence.size(); ++i) arrived[i] = sum += sequence[i].total_milli();
  auto level_of = [&](size_t i) {
    return total_gpus > 0 ? arrived_level(arrived[i], total_gpus) : 0.0;
  };
  std::vector<int64_t> out(sequence.size());
  PrefixCounts counts(lp, sequence);
  for (size_t i = 0; i < sequence.size();) {
    size_t j = i + 1;  // events i..j-1 share one level
    while (j < sequence.size() && level_of(j) == level_of(i)) ++j;
    auto b = lp.max_alloc_milli(counts.upto(j));
    if (!b.ok()) return b.error();
    if (b.value() >= arrived[j - 1]) {  // everything that arrived fits: the bound is exact
      for (size_t k = i; k < j; ++k) out[k] = arrived[k];
      i = j;
      continue;
    }
    // Binding: the level's events get the bound at the end of their chunk of the level.
    int64_t cap = b.value();
    if (options.ilp) {
      auto q = lp.max_alloc_milli_ilp(counts.upto(j), options.ilp_seconds);
      if (!q.ok()) return q.error();
      cap = q.value();
    }
    const size_t chunk = (j - i + kBoundChunks - 1) / kBoundChunks;
    for (size_t a = i; a < j; a += chunk) {
      const size_t e = std::min(j, a + chunk);
      auto c = lp.max_alloc_milli(counts.upto(e));
      if (!c.ok()) return c.error();
      for (size_t k = a; k < e; ++k) out[k] = std::min({arrived[k], c.value(), cap});
    }
    i = j;
  }
  return out;
}

}  // namespace frugal::pack
