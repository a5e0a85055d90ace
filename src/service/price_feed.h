#pragma once
// The live service's price fallback source (ServiceConfig::price_fallback): a flat price,
// or a price CSV read from a file or a command's standard output, fetched once at start()
// and again every refresh_s on its own thread (a slow command never holds up the decision
// loop). A failed fetch keeps the last good hours and reports the error.
//
// Thread-safety: snapshot() and version() may be called from any thread after start().

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "io/live_prices.h"
#include "service/config.h"

namespace frugal {

class PriceFeed {
 public:
  struct Snapshot {
    PriceFallback fallback;
    std::string error;  // the last fetch's error; "" when it succeeded
    std::string what;   // "flat 95 USD/MWh", "file PATH", "command" or "" (none configured)
  };

  PriceFeed(PriceFallbackConfig config, std::function<void(const std::string&)> log);
  ~PriceFeed();  // stops the refresh thread
  PriceFeed(const PriceFeed&) = delete;
  PriceFeed& operator=(const PriceFeed&) = delete;

  // Fetches once (here, synchronously), then starts the refresh thread for a file or command.
  void start();
  Snapshot snapshot() const;
  // Changes whenever a fetch changes the snapshot (new hours or a new error).
  uint64_t version() const { return version_.load(); }

 private:
  void fetch();
  void run();

  PriceFallbackConfig config_;
  std::function<void(const std::string&)> log_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  Snapshot snap_;
  std::atomic<uint64_t> version_{0};
  std::thread thread_;
};

}  // namespace frugal
