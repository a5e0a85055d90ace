#include "service/usage_series.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace frugal {

UsageSeries::UsageSeries(double interval_s, double keep_s)
    : interval_s_(interval_s), keep_s_(keep_s) {}

void UsageSeries::restore(std::vector<UsageSampleRow> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const UsageSampleRow& a, const UsageSampleRow& b) { return a.at < b.at; });
  for (UsageSampleRow& r : rows)
    if (closed_.empty() || r.at > closed_.back().at) closed_.push_back(std::move(r));
}

void UsageSeries::accumulate(double t0, double t1) {
  const double dt = t1 - t0;
  if (!(dt > 0)) return;
  span_s_ += dt;
  sums_.provisioned_gpus += reading_.provisioned_gpus * dt;
  sums_.allocated_gpus += reading_.allocated_gpus * dt;
  sums_.queued_jobs += reading_.queued_jobs * dt;
  sums_.burn_usd_h += reading_.burn_usd_h * dt;
  sums_.idle_usd_h += reading_.idle_usd_h * dt;
  if (reading_.busy_gpus >= 0) {
    // sums_.busy_gpus starts at -1 (none measured): the first measured stretch sets it.
    sums_.busy_gpus = std::max(0.0, sums_.busy_gpus) + reading_.busy_gpus * dt;
    busy_span_s_ += dt;
  }
  for (const auto& [team, rate] : reading_.teams_usd_h) sums_.teams_usd_h[team] += rate * dt;
}

UsageSampleRow UsageSeries::open_means() const {
  UsageSampleRow r;
  r.at = open_at_;
  r.span_s = span_s_;
  if (!(span_s_ > 0)) return r;
  r.provisioned_gpus = sums_.provisioned_gpus / span_s_;
  r.allocated_gpus = sums_.allocated_gpus / span_s_;
  r.busy_gpus = busy_span_s_ > 0 ? sums_.busy_gpus / busy_span_s_ : -1;
  r.queued_jobs = sums_.queued_jobs / span_s_;
  r.burn_usd_h = sums_.burn_usd_h / span_s_;
  r.idle_usd_h = sums_.idle_usd_h / span_s_;
  for (const auto& [team, sum] : sums_.teams_usd_h) r.teams_usd_h[team] = sum / span_s_;
  return r;
}

std::vector<UsageSampleRow> UsageSeries::observe(double now, UsageReading reading) {
  std::vector<UsageSampleRow> out;
  if (!have_reading_) {
    have_reading_ = true;
    open_at_ = std::floor(now / interval_s_) * interval_s_;
    reading_at_ = now;
  }
  for (double t = reading_at_; t < now;) {
    const double end = open_at_ + interval_s_;
    const double upto = std::min(now, end);
    accumulate(t, upto);
    t = upto;
    if (upto < end) break;
    if (span_s_ > 0) {
      closed_.push_back(open_means());
      out.push_back(closed_.back());
    }
    open_at_ = end;
    span_s_ = busy_span_s_ = 0;
    sums_ = UsageReading{};
  }
  reading_at_ = std::max(reading_at_, now);
  reading_ = std::move(reading);
  prune(reading_at_ - keep_s_);
  return out;
}

std::vector<UsageSampleRow> UsageSeries::since(double from) const {
  std::vector<UsageSampleRow> out;
  const auto first = std::lower_bound(closed_.begin(), closed_.end(), from,
                                      [](const UsageSampleRow& r, double t) { return r.at < t; });
  out.assign(first, closed_.end());
  if (span_s_ > 0 && open_at_ >= from) out.push_back(open_means());
  return out;
}

void UsageSeries::prune(double before) {
  while (!closed_.empty() && closed_.front().at < before) closed_.pop_front();
}

}  // namespace frugal
