#include "service/telemetry_book.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace frugal {

TelemetryBook::TelemetryBook(std::map<std::string, int> node_gpus, TelemetryRules rules)
    : node_gpus_(std::move(node_gpus)), rules_(rules) {}

std::variant<TelemetryBook::Accepted, TelemetryBook::Refusal> TelemetryBook::ingest(
    const std::vector<std::string>& allowed, TelemetryBatch batch, double now) {
  const auto refuse = [&](int status, std::string field, std::string message) {
    const std::lock_guard<std::mutex> g(mu_);
    ++(status == 429 ? counters_.rate_limited : counters_.refused);
    return Refusal{status, FieldError{std::move(field), std::move(message)}};
  };
  if (batch.sent_at > 0 && std::abs(batch.sent_at - now) > rules_.max_skew_s)
    return refuse(
        400, "sent_at",
        fmt::format("the agent's clock is {:.0f} s {} the service's (telemetry.max_skew_s "
                    "{:g}); check the node's time synchronisation",
                    std::abs(batch.sent_at - now), batch.sent_at > now ? "ahead of" : "behind",
                    rules_.max_skew_s));
  // Checked whole before anything is kept.
  std::set<std::string> named;
  for (size_t i = 0; i < batch.reports.size(); ++i) {
    const NodeReport& r = batch.reports[i];
    const std::string at = fmt::format("reports[{}]", i);
    const auto it = node_gpus_.find(r.node);
    if (it == node_gpus_.end())
      return refuse(400, at + ".node", fmt::format("unknown node '{}'", r.node));
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), r.node) == allowed.end())
      return refuse(403, at + ".node",
                    fmt::format("this node token may not report for node '{}'", r.node));
    for (size_t k = 0; k < r.gpus.size(); ++k)
      if (r.gpus[k].gpu >= it->second)
        return refuse(
            400, fmt::format("{}.gpus[{}].index", at, k),
            fmt::format("node '{}' has {} GPU(s): no GPU {}", r.node, it->second, r.gpus[k].gpu));
    const double ahead = r.time - (batch.sent_at > 0 ? batch.sent_at : now);
    if (ahead > rules_.max_skew_s)
      return refuse(400, at + ".time",
                    fmt::format("{:.0f} s after the batch was sent (telemetry.max_skew_s {:g})",
                                ahead, rules_.max_skew_s));
    named.insert(r.node);
  }
  const std::lock_guard<std::mutex> g(mu_);
  for (const std::string& n : named) {
    Node& node = nodes_[n];
    if (now - node.posted < rules_.min_post_interval_s) {
      ++counters_.rate_limited;
      return Refusal{
          429,
          FieldError{"reports", fmt::format("node '{}' posted {:.2f} s ago; at most one post "
                                            "per {:g} s (telemetry.min_post_interval_s)",
                                            n, now - node.posted, rules_.min_post_interval_s)}};
    }
  }
  // Report times on the service's clock: shifted by the batch's measured skew.
  const double shift = batch.sent_at > 0 ? now - batch.sent_at : 0;
  Accepted a;
  for (NodeReport& r : batch.reports) {
    Node& node = nodes_[r.node];
    node.posted = now;
    r.time = std::min(now, r.time + shift);
    if (r.time < now - rules_.max_age_s || (node.received > -1e17 && r.time <= node.newest.time)) {
      ++a.stale;
      continue;
    }
    ++a.accepted;
    node.newest = r;
    node.received = now;
    node.pending.push_back(std::move(r));
    if (node.pending.size() > kMaxPendingPerNode) {
      node.pending.erase(node.pending.begin());
      ++counters_.dropped;
    }
  }
  counters_.accepted += a.accepted;
  counters_.stale += a.stale;
  return a;
}

std::vector<NodeReport> TelemetryBook::take() {
  std::vector<NodeReport> out;
  const std::lock_guard<std::mutex> g(mu_);
  for (auto& [name, node] : nodes_) {
    std::move(node.pending.begin(), node.pending.end(), std::back_inserter(out));
    node.pending.clear();
  }
  return out;
}

std::vector<NodeReport> TelemetryBook::latest(double now) const {
  std::vector<NodeReport> out;
  const std::lock_guard<std::mutex> g(mu_);
  for (const auto& [name, node] : nodes_)
    if (node.received > -1e17 && now - node.received <= rules_.stale_after_s)
      out.push_back(node.newest);
  return out;
}

TelemetryBook::Counters TelemetryBook::counters() const {
  const std::lock_guard<std::mutex> g(mu_);
  return counters_;
}

}  // namespace frugal
