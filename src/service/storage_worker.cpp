#include "service/storage_worker.h"

namespace frugal {

StorageWorker::StorageWorker(std::unique_ptr<storage::StorageManager> manager)
    : manager_(std::move(manager)), thread_([this] { run(); }) {}

StorageWorker::~StorageWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  thread_.join();
}

void StorageWorker::post(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

size_t StorageWorker::backlog() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + running_;
}

void StorageWorker::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Task task = std::move(queue_.front());
    queue_.pop_front();
    running_ = 1;
    lock.unlock();
    task(*manager_);
    lock.lock();
    running_ = 0;
  }
}

}  // namespace frugal
