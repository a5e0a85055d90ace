#include "policy/features.h"

#include "policy/dataset_locality.h"
#include "policy/dataset_prefetch.h"
#include "policy/elastic_sizing.h"
#include "policy/pack_down.h"
#include "policy/prompt_release.h"
#include "policy/relay_step.h"
#include "policy/soon_free.h"
#include "policy/spot_placement.h"

namespace frugal {

void add_features(Profile& p, const FeatureSet& f) {
  if (f.spot) p.plugins.push_back(make_spot_placement());
  if (f.elastic)
    p.plugins.push_back(make_elastic_sizing({.tou = f.tou, .autoscale_first = f.autoscale_first}));
  if (f.datasets) {
    p.plugins.push_back(make_dataset_locality());
    p.plugins.push_back(make_dataset_prefetch());
  }
  if (p.relay) p.plugins.push_back(make_relay_step(*p.relay));
  if (f.pack_down) p.plugins.push_back(make_pack_down());
  if (f.soon_free) p.plugins.push_back(make_soon_free());
  if (f.prompt_release) p.plugins.push_back(make_prompt_release());
}

}  // namespace frugal
