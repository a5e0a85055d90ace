#pragma once
// Telemetry pushed by node agents (POST /v1/telemetry, docs/TELEMETRY.md), checked against
// the cluster and kept for the decision loop: each node's newest report (views, alerts,
// /metrics) and every report not yet taken by the loop (measured use of jobs).
//
// A batch is taken whole or refused whole. Refused (nothing kept), with the field at fault:
//   403  a node the agent's token may not report for
//   400  an unknown node; a GPU index the node does not have; sent_at (or, without it, a
//        report's time) more than max_skew_s from the service's clock
//   429  a node posted again within min_post_interval_s (an agent in a loop)
// Reports older than max_age_s, or not newer than the node's newest, are counted as stale
// and skipped (an agent's backlog after an outage may hold both).
// Memory is bounded: at most kMaxPendingPerNode untaken reports per node (the oldest go).
// Thread-safe: HTTP threads ingest, the loop takes.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "agent/telemetry_wire.h"
#include "service/config.h"

namespace frugal {

class TelemetryBook {
 public:
  static constexpr size_t kMaxPendingPerNode = 1000;

  struct Refusal {
    int status = 400;
    FieldError error;
  };
  struct Accepted {
    size_t accepted = 0;
    size_t stale = 0;
  };
  struct Counters {
    uint64_t accepted = 0, stale = 0, refused = 0, rate_limited = 0, dropped = 0;
  };

  // `node_gpus`: every node the cluster has and its GPU count.
  TelemetryBook(std::map<std::string, int> node_gpus, TelemetryRules rules);

  // `allowed`: the nodes the posting token may report for (empty: any node).
  std::variant<Accepted, Refusal> ingest(const std::vector<std::string>& allowed,
                                         TelemetryBatch batch, double now);
  // Reports received since the previous take, oldest first per node.
  std::vector<NodeReport> take();
  // Each node's newest report received within stale_after_s of `now`.
  std::vector<NodeReport> latest(double now) const;
  Counters counters() const;
  bool knows(const std::string& node) const { return node_gpus_.count(node) > 0; }

 private:
  struct Node {
    NodeReport newest;
    double received = -1e18;  // Unix s, service clock
    double posted = -1e18;    // last batch naming it
    std::vector<NodeReport> pending;
  };
  const std::map<std::string, int> node_gpus_;
  const TelemetryRules rules_;
  mutable std::mutex mu_;
  std::map<std::string, Node> nodes_;
  Counters counters_;
};

}  // namespace frugal
