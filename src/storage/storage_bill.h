#pragma once
// The storage manager's bill: what its real bytes cost, per team and tier, from its own records
// (StorageManager::bill_tick and StorageManager::bill; storage_bill.cpp).
//
// What is priced:
//   - Storage: every file set (checkpoint, dataset object, staged copy) accrues bytes x seconds
//     on its tier from `tier_since` (when it was recorded or entered its tier). A change of tier
//     (the mover's record step) or a deletion closes the interval into storage_usage in the same
//     SQLite transaction as the record change, so a crash neither loses nor double-counts it;
//     open intervals are added at read time (bill() writes nothing). GB-hours = byte-seconds /
//     1e9 / 3600; USD = GB-hours x usd_per_gb_month / 720 (a 30-day month, as the rest of the
//     ledger, src/cost/ledger.cpp, prices storage). A database migrated from schema 1 bills its
//     existing file sets from the migration time (storage_db.h).
//   - Transfers: bytes read out of a tier into another, priced at the source tier's
//     transfer_usd_per_gb (GB = 1e9 bytes): checkpoint moves (lifecycle, restore_newest) by the
//     checkpoint's bytes, and staging a dataset from the warm objects to a node's hot tier by the
//     staged shard's logical bytes, whether hard linked (same file system) or copied: the price
//     is for bytes moved logically, not for what the file system did. Reusing a staged copy
//     transfers nothing.
//   - Waste (a subset of the storage dollars, never added to them), integrated by bill_tick over
//     [previous tick, now) from the state at `now`: the error is at most one tick interval's
//     worth per change (the service ticks with each lifecycle run, lifecycle_interval_s):
//       hot_unused        a file set on the hot tier unused for more than hot_unused_after_s
//                         (a checkpoint since completion or last use; a staged copy no running
//                         job uses since its last use; incomplete checkpoints never), priced at
//                         the hot price minus the warm price (the premium paid for nothing);
//       past_retention    a checkpoint plan_lifecycle (its team's policy) would delete now but
//                         that is still stored, at its tier's price; every job counts as
//                         restartable (its newest complete checkpoint is never waste);
//       duplicate_stored  a checkpoint whose checksum equals an older stored one's (bytes beyond
//                         the first copy), at its tier's price; bill_tick hashes complete
//                         checkpoints without a checksum whose size another one has (once
//                         each; a moved checkpoint already has its checksum).
//
// Attribution (every dollar lands on exactly one team; Σ teams == total):
//   - checkpoints: their job and team;
//   - staged copies: the job that staged them and that job's team (as registered by
//     scan_checkpoints), else the dataset's first declaring team;
//   - dataset objects: split evenly among the teams declaring a dataset whose manifest holds
//     the object (else the team that first stored it). The split is exact over time: declaring
//     or removing a dataset closes the intervals of its objects first.
//   - dedup, per team: logical bytes of the datasets it declared vs its share of the distinct
//     objects stored; the content addressing avoids (logical - stored) x the warm price per
//     month.
// Per job: storage + transfer USD of its checkpoints and staged copies (dataset objects have no
// job).

#include <cstdint>
#include <map>
#include <string>

namespace frugal::storage {

struct TierBill {
  double gb_hours = 0;
  double usd = 0;
};

struct TeamBill {
  std::map<std::string, TierBill> tiers;  // tier name -> GB-hours and USD
  double storage_usd = 0;                 // Σ tiers' usd
  double transfer_gb = 0, transfer_usd = 0;
  std::map<std::string, double> waste_usd;  // hot_unused | past_retention | duplicate_stored
  uint64_t dataset_logical_bytes = 0;       // Σ over datasets it declared of their bytes
  double dataset_stored_bytes = 0;          // its share of the distinct objects stored now
  double cas_avoided_usd_per_month = 0;     // (logical - stored) x warm price
  double total_usd = 0;                     // storage_usd + transfer_usd
};

struct JobBill {
  std::string team;
  double storage_usd = 0, transfer_usd = 0, total_usd = 0;
};

struct StorageBill {
  double at = 0;          // the `now` it was computed for
  double last_tick = -1;  // the last bill_tick (waste is integrated up to it); < 0: none yet
  std::map<std::string, TeamBill> teams;
  TeamBill total;  // Σ teams (dedup bytes too)
  std::map<std::string, JobBill> jobs;
};

// The waste categories, in order.
inline constexpr const char* kWasteCategories[] = {"hot_unused", "past_retention",
                                                   "duplicate_stored"};

// The bill as JSON (GET /v1/storage/bill, `frugal storage bill --json`). `team` non-empty: only
// that team (teams holds it alone, total is its bill, jobs only its jobs).
std::string bill_json(const StorageBill& b, const std::string& team = "");

}  // namespace frugal::storage
