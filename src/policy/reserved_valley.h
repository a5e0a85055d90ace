#pragma once
// Reserved valleys: when reserved or owned capacity, already paid for, is expected to have
// room for a job.
//
// find() looks at each up reserved/owned node of an allowed GPU model that is large enough
// for the job on one node: its wholly free GPUs now plus, in order of expected end, the
// GPUs the jobs running on it free (CycleView::jobs_on, JobRuntime::expected_end), less the
// GPUs earlier claims hold on it over the job's run. It returns the earliest time in
// [now, latest] at which the job would fit on such a node, and the node (lowest id on
// ties); nullopt when none. Jobs needing more than one node are never placed in a valley.
//
// claim() records that a job was deferred to a valley, so later jobs do not count on the
// same GPUs; claims end with the claimed run and are dropped once past. A prediction only:
// the engine's placement decides where the job runs when it is released. Deterministic.

#include <optional>
#include <vector>

#include "framework/plugins.h"

namespace frugal {

struct Valley {
  Seconds at = 0;
  NodeId node = 0;
};

class ReservedValleys {
 public:
  // `runtime_on(m)`: the job's expected run time on model m (<= 0: model not allowed).
  // Drops the claims whose run is over.
  template <class RuntimeOn>
  std::optional<Valley> find(const CycleView& v, const JobSpec& job, Seconds latest,
                             RuntimeOn runtime_on) {
    std::optional<Valley> best;
    const ClusterState& st = v.cluster();
    for (NodeId n = 0; n < st.node_count(); ++n) {
      if (!st.up(n) || st.gpus(n) < job.gpus ||
          rented(st.spec().pools[st.centre_pool(st.centre_of(n))].capacity))
        continue;
      const double rt = runtime_on(st.model(n));
      if (!(rt > 0)) continue;
      const std::optional<Seconds> t = node_free_at(v, n, job.gpus, rt, latest);
      if (t && (!best || *t < best->at)) best = Valley{*t, n};
    }
    return best;
  }

  void claim(NodeId n, Seconds from, Seconds to, int gpus);

 private:
  struct Claim {
    NodeId node;
    Seconds from, to;
    int gpus;
  };
  // Earliest t in [now, latest] with `gpus` GPUs of node n free over [t, t + runtime).
  // Drops the claims whose run is over.
  std::optional<Seconds> node_free_at(const CycleView& v, NodeId n, int gpus, Seconds runtime,
                                      Seconds latest);
  int claimed(NodeId n, Seconds from, Seconds to) const;

  std::vector<Claim> claims_;
};

}  // namespace frugal
