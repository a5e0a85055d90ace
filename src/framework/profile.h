#pragma once
// A scheduling profile: one plugin per extension point of the pipeline (framework/plugins.h)
// plus its cycle plugins (framework/cycle_plugin.h). Built from a policy string by
// policy/profile.h.

#include <memory>
#include <string>
#include <vector>

#include "framework/cycle_plugin.h"
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
  // Cycle plugins (framework/cycle_plugin.h), called at each point in this order.
  std::vector<std::unique_ptr<CyclePlugin>> plugins;
  // Whether any cycle plugin asks idle on-demand nodes to go back at once.
  bool prompt_release() const;

  // "sort=arrival admit=capacity ..." — for reports and logs.
  std::string describe() const;
};

}  // namespace frugal
