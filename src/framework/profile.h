#pragma once
// A scheduling profile: one plugin per extension point of the pipeline (framework/plugins.h)
// plus the engine features it turns on. Built from a policy string by policy/profile.h.

#include <memory>
#include <string>

#include "framework/plugins.h"

namespace frugal {

struct Profile {
  std::string name;
  std::unique_ptr<QueueSort> sort;
  std::unique_ptr<Admit> admit;
  std::unique_ptr<Filter> filter;
  std::unique_ptr<Placer> placer;
  std::unique_ptr<PostFilter> post_filter;
  std::unique_ptr<Preempt> preempt;          // may be null
  std::unique_ptr<Consolidate> consolidate;  // may be null
  std::unique_ptr<Relay> relay;              // may be null (+sun)
  bool elastic = false;                      // +elastic: resize elastic jobs (kResize)
  bool pack_down = false;  // +packdown: empty lightly used on-demand nodes (engine/pack_down)
  bool soon_free = false;  // +soonfree: no on-demand node for demand running jobs free sooner
  // +release: hand an idle on-demand node back at once rather than after the pool's idle
  // timeout, unless deferred work falls due within that timeout (NodePool::set_prompt_release).
  bool prompt_release = false;
  // With elastic: a queued job the autoscaler can still add a node for
  // (CycleView::can_add_capacity) waits for that node instead of shrinking running elastic
  // jobs to start now (frugal option autoscale_first=1).
  bool autoscale_first = false;
  // +tou (sets elastic too): elastic jobs on on-demand nodes grow onto new on-demand nodes in
  // their region's discounted off-peak hours when that costs less than doing the same work
  // at peak rates, and drop those nodes again when peak hours start (engine/tou_elastic).
  bool tou_elastic = false;

  // "sort=arrival admit=capacity ..." — for reports and logs.
  std::string describe() const;
};

}  // namespace frugal
