#pragma once
// The live service's calendar: keeps the cluster's regions priced for the real clock
// (io/live_prices.h) over a window of real hours, from a week before the oldest job the
// service knows to 400 days after now, so no lookup the service makes (the ledger's past
// segments, a deferral's search up to a deadline) reaches past it. The window is rebuilt
// when now comes within 370 days of its end, when an older job appears, and whenever the
// price fallback (service/price_feed.h) fetched something new.
//
// Loop-thread only (not thread-safe); the feed runs its own thread.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "io/live_prices.h"
#include "model/cluster_spec.h"
#include "service/config.h"
#include "service/price_feed.h"

namespace frugal {

class LiveCalendar {
 public:
  // `configured`: the cluster's regions as loaded (their series as the files give them).
  LiveCalendar(std::vector<Region> configured, PriceFallbackConfig fallback,
               std::function<void(const std::string&)> log);

  void start();  // the feed's first fetch, then its refresh thread

  // Brings `regions` (the live cluster's, same order as `configured`) to the window that
  // `now` and `earliest` (the oldest time the ledger may price, Unix s) need. True when their
  // series were replaced (the engine must get them too). Errors only on a region the loader
  // would have refused (unknown zone): the series are left as they were.
  Result<bool> update(double now, double earliest, std::vector<Region>& regions);

  // Regions whose price or carbon series does not cover `now`: (region name, message naming
  // the series' end and what prices the hour instead).
  std::vector<std::pair<std::string, std::string>> stale(double now) const;

  // GET /v1/regions: per region its local time, weekday, holiday and off-peak state, the
  // price and carbon intensity of the current hour and where the price came from.
  // `regions`: the live ones (after update()).
  nlohmann::json status_json(double now, const std::vector<Region>& regions) const;

  const std::vector<Region>& configured() const { return configured_; }

 private:
  std::vector<Region> configured_;
  PriceFeed feed_;
  uint64_t feed_version_ = ~uint64_t{0};       // the feed version the window was built with
  PriceFeed::Snapshot fallback_;               // the feed's snapshot the window was built with
  int64_t window_start_ = 0, window_end_ = 0;  // [start, end) Unix s; 0/0 before the first
  std::function<void(const std::string&)> log_;
};

}  // namespace frugal
