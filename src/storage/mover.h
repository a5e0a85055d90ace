#pragma once
// Crash-safe moves of a recorded file set (a file or a folder) to a new path on another tier:
//   journal (SQLite row, state "started") -> copy to <dst>.frugal-tmp-<id> -> fsync every file
//   and folder -> verify the copy's checksum against the record and the source unchanged ->
//   rename into place -> record (file set's tier and path, journal state "recorded", one
//   transaction) -> delete source -> finish (journal row removed).
// The FaultHook runs before each step. A source modified during the move (size, file count,
// newest mtime or checksum differs from what was copied) aborts it: the copy is removed, the
// source and record kept, the error says so.
// recover(): a journal entry still "started" is rolled back (tmp and dst removed, source and
// record untouched: the source is never deleted before "recorded"); one "recorded" is
// completed (the rest of the source deleted). Either way every byte is in at least one tier,
// the record is true and no temporary remains.

#include <string>
#include <vector>

#include "model/result.h"
#include "storage/move_step.h"
#include "storage/storage_db.h"

namespace frugal::storage {

class Mover {
 public:
  Mover(StorageDb& db, FaultHook hook) : db_(db), hook_(std::move(hook)) {}

  // Moves file set `id` to `dst` (must not exist; its parent is created) on tier `to_tier`.
  // On success the record holds dst and the new tier. An empty record checksum is computed
  // from the source first. The record step also closes the file set's interval on its old tier
  // into storage_usage, restarts it at `now` and logs the transfer (storage_transfers), in the
  // same transaction: a crash can neither lose nor double-count a byte-second.
  Status move(int64_t id, const std::string& dst, const std::string& to_tier, double now);

  // Completes or rolls back unfinished journal entries; one line per entry handled.
  Result<std::vector<std::string>> recover();

 private:
  void step(MoveStep s) const {
    if (hook_) hook_(s);
  }
  Status copy_and_verify(const FileSet& f, const MoveEntry& m, double now);
  Status abort_move(const MoveEntry& m, const std::string& why);

  StorageDb& db_;
  FaultHook hook_;
};

}  // namespace frugal::storage
