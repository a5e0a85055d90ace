#pragma once
// The cycle plugins a policy string turns on (suffixes +elastic, +packdown, +soonfree,
// +release, +tou; frugal's options of the same names), and how they join a profile: one
// place that maps a feature to its plugin (framework/cycle_plugin.h), in a fixed order.

#include "framework/profile.h"

namespace frugal {

struct FeatureSet {
  bool elastic = false;          // policy/elastic_sizing.h
  bool tou = false;              // with elastic: time-of-use sizing (policy/tou_sizing.h)
  bool autoscale_first = false;  // with elastic: wait for a node rather than shrink
  bool pack_down = false;        // policy/pack_down.h
  bool soon_free = false;        // policy/soon_free.h
  bool prompt_release = false;   // policy/prompt_release.h
  bool spot = false;             // policy/spot_placement.h (frugal only; no suffix)
  // Dataset locality and prefetch (policy/dataset_locality.h, policy/dataset_prefetch.h):
  // no-ops until a job declares datasets whose residency or size is known.
  bool datasets = false;
};

// Appends the set's plugins to p.plugins in the fixed order spot (first: its provision rank
// wins on clusters with spot pools), elastic, datasets (locality after elastic's sizing at
// the Size point, then prefetch), relay (the runner of p.relay when the profile
// has one: call this after setting p.relay), packdown, soonfree, release. tou and autoscale_first
// are options of the elastic plugin: nothing without it.
void add_features(Profile& p, const FeatureSet& f);

}  // namespace frugal
