#pragma once
// The storage manager's worker thread: every change the live service makes to storage
// (dataset registration, staging and release, checkpoint scans and restores, the lifecycle's
// moves) runs here, one task at a time in the order posted, on the worker's own
// StorageManager (its own SQLite connection). So a long copy never holds the decision loop:
// the loop posts a task and collects its outcome on a later turn.
//
// Thread-safety: post() and the destructor may be called from any thread; a task runs on the
// worker thread only and must not touch the poster's state (it gets the manager and its
// captured values). The destructor finishes the running task, drops the queued ones and joins.

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "storage/storage_manager.h"

namespace frugal {

class StorageWorker {
 public:
  using Task = std::function<void(storage::StorageManager&)>;
  explicit StorageWorker(std::unique_ptr<storage::StorageManager> manager);
  ~StorageWorker();
  StorageWorker(const StorageWorker&) = delete;
  StorageWorker& operator=(const StorageWorker&) = delete;

  void post(Task task);
  // Tasks posted and not yet finished (the running one included).
  size_t backlog() const;

 private:
  void run();

  std::unique_ptr<storage::StorageManager> manager_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace frugal
