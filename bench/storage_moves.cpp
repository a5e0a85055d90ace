// Throughput of the storage manager's crash-safe moves (storage/mover.h: copy, fsync every
// file and folder, verify the copy's SHA-256 against the source's, rename, record in SQLite,
// delete the source) against `cp -r` of the same folder on the same file system, without and
// with `sync` after it (cp does not fsync; the manager does, and reads everything back).
//
// Each run writes a fresh checkpoint folder of --files files totalling --gb GB (random bytes,
// so nothing compresses or dedups) under <--dir>/hot, then:
//   mover     StorageManager::move_checkpoint(hot -> warm), tiers as folders under --dir
//   cp        cp -r of an identical fresh folder into another folder
//   cp+sync   the same followed by sync -f on the destination
// alternating per run, --runs times. Prints the median seconds and GB/s of each, and the
// mover's time as a ratio of cp's and of cp+sync's. Page cache is not dropped (the sources
// are freshly written, as a checkpoint the job just wrote would be).
//
//   frugal_storage_moves [--gb 1] [--files 8] [--runs 3] [--dir $TMPDIR]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "storage/storage_manager.h"

namespace {

namespace fs = std::filesystem;
using frugal::storage::StorageManager;
using frugal::storage::Tier;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// A checkpoint folder `dir` of `files` files of random bytes, `bytes` in all, with the
// completion marker.
void write_checkpoint(const fs::path& dir, int files, uint64_t bytes, uint64_t seed) {
  fs::create_directories(dir);
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> block(1 << 17);  // 1 MiB
  const uint64_t per_file = bytes / static_cast<uint64_t>(files);
  for (int f = 0; f < files; ++f) {
    std::ofstream out(dir / ("shard-" + std::to_string(f) + ".bin"), std::ios::binary);
    for (uint64_t written = 0; written < per_file;) {
      for (uint64_t& w : block) w = rng();
      const uint64_t n = std::min<uint64_t>(per_file - written, block.size() * 8);
      out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(n));
      written += n;
    }
  }
  std::ofstream(dir / "FRUGAL_COMPLETE").put('\n');
}

int run_shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  if (rc != 0) std::fprintf(stderr, "storage_moves: '%s' failed (%d)\n", cmd.c_str(), rc);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Storage moves against cp -r"};
  double gb = 1;
  int files = 8, runs = 3;
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp && *tmp ? tmp : "/tmp";
  app.add_option("--gb", gb, "GB per checkpoint")->check(CLI::PositiveNumber);
  app.add_option("--files", files, "files per checkpoint")->check(CLI::Range(1, 10000));
  app.add_option("--runs", runs, "runs of each")->check(CLI::Range(1, 100));
  app.add_option("--dir", dir, "where the tier folders go (one file system)");
  CLI11_PARSE(app, argc, argv);

  const fs::path root = fs::path(dir) / "frugal-storage-moves";
  fs::remove_all(root);
  for (const char* t : {"hot", "warm", "cold", "cp-src", "cp-dst"})
    fs::create_directories(root / t);
  frugal::storage::StorageConfig config;
  config.enabled = true;
  config.tiers = {{"hot", (root / "hot").string(), "", 0, 0.10, 0, 0, ""},
                  {"warm", (root / "warm").string(), "", 0, 0.03, 0, 0, ""},
                  {"cold", (root / "cold").string(), "", 0, 0.004, 0, 0, ""}};
  auto opened = StorageManager::open(config, (root / "state.db").string());
  if (!opened.ok()) {
    std::fprintf(stderr, "storage_moves: %s\n", opened.error().message.c_str());
    return 1;
  }
  StorageManager& m = *opened.value();
  const uint64_t bytes = static_cast<uint64_t>(gb * 1e9);
  std::vector<double> mover, cp, cp_sync;
  for (int r = 0; r < runs; ++r) {
    const std::string job = "job" + std::to_string(r);
    const fs::path job_dir = root / "hot" / "checkpoints" / job;
    write_checkpoint(job_dir / "step-1", files, bytes, 3 * static_cast<uint64_t>(r));
    const double now = 1e9 + r;  // the manager's time (it bills by it; no clock inside)
    auto recs = m.scan_checkpoints(job, "bench", job_dir.string(), now);
    if (!recs.ok() || recs.value().empty()) {
      std::fprintf(stderr, "storage_moves: scan: %s\n",
                   recs.ok() ? "no checkpoint" : recs.error().message.c_str());
      return 1;
    }
    auto t0 = std::chrono::steady_clock::now();
    if (auto s = m.move_checkpoint(recs.value()[0].id, Tier::warm, now); !s.ok()) {
      std::fprintf(stderr, "storage_moves: move: %s\n", s.error().message.c_str());
      return 1;
    }
    mover.push_back(seconds_since(t0));

    for (const bool sync : {false, true}) {
      const fs::path src = root / "cp-src" / (job + (sync ? "s" : ""));
      const fs::path dst = root / "cp-dst" / (job + (sync ? "s" : ""));
      write_checkpoint(src, files, bytes, 3 * static_cast<uint64_t>(r) + (sync ? 2 : 1));
      t0 = std::chrono::steady_clock::now();
      std::string cmd = "cp -r '" + src.string() + "' '" + dst.string() + "'";
      if (sync) cmd += " && sync -f '" + dst.string() + "'";
      if (run_shell(cmd) != 0) return 1;
      (sync ? cp_sync : cp).push_back(seconds_since(t0));
      fs::remove_all(src);
      fs::remove_all(dst);
    }
    fs::remove_all(root / "warm" / "checkpoints" / job);
  }
  const double gbs = static_cast<double>(bytes) / 1e9;
  std::printf("checkpoint: %.2f GB in %d files; %d runs each; medians\n", gbs, files, runs);
  std::printf("%-8s %9s %8s\n", "how", "seconds", "GB/s");
  for (const auto& [name, v] : {std::pair<const char*, const std::vector<double>&>{"mover", mover},
                                {"cp", cp},
                                {"cp+sync", cp_sync}})
    std::printf("%-8s %9.3f %8.3f\n", name, median(v), gbs / median(v));
  std::printf("mover / cp: %.2fx the time; mover / cp+sync: %.2fx\n", median(mover) / median(cp),
              median(mover) / median(cp_sync));
  fs::remove_all(root);
  return 0;
}
