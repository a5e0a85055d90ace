#include "service/price_feed.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>

#include "drivers/command.h"
#include "io/hourly_csv.h"

namespace frugal {

PriceFeed::PriceFeed(PriceFallbackConfig config, std::function<void(const std::string&)> log)
    : config_(std::move(config)), log_(std::move(log)) {
  if (config_.usd_per_mwh >= 0) {
    snap_.fallback.flat_usd_per_mwh = config_.usd_per_mwh;
    snap_.what = fmt::format("flat {} USD/MWh", config_.usd_per_mwh);
  } else if (!config_.file.empty()) {
    snap_.what = "file " + config_.file;
  } else if (!config_.command.empty()) {
    snap_.what = "command";
  }
}

PriceFeed::~PriceFeed() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PriceFeed::start() {
  if (config_.file.empty() && config_.command.empty()) return;
  fetch();
  thread_ = std::thread([this] { run(); });
}

PriceFeed::Snapshot PriceFeed::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return snap_;
}

void PriceFeed::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (cv_.wait_for(lock, std::chrono::duration<double>(config_.refresh_s),
                     [this] { return stopping_; }))
      break;
    lock.unlock();
    fetch();
    lock.lock();
  }
}

void PriceFeed::fetch() {
  Result<HourlySeries> got = Error{""};
  if (!config_.file.empty()) {
    got = read_price_csv(config_.file);
  } else {
    const std::string origin = "price_fallback.command output";
    Result<CommandOutput> out = run_command({"/bin/sh", "-c", config_.command}, config_.timeout_s);
    if (!out.ok())
      got = Error{"price_fallback.command: " + out.error().message};
    else if (out.value().exit_code != 0)
      got = Error{fmt::format("price_fallback.command: exit status {}: {}", out.value().exit_code,
                              out.value().err.substr(0, 500))};
    else
      got = parse_price_csv(out.value().out, origin);
  }
  std::string message;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (got.ok()) {
      snap_.fallback.series = std::move(got).value();
      snap_.error.clear();
      message = fmt::format("price_fallback: {} hour(s) from {}", snap_.fallback.series.hours(),
                            snap_.what);
    } else {
      snap_.error = got.error().message;
      message = "price_fallback: " + snap_.error + " (keeping the last good hours)";
    }
    ++version_;
  }
  log_(message);
}

}  // namespace frugal
