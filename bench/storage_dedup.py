#!/usr/bin/env python3
"""Dedup ratio and time on a generated checkpoint series: file-level (content-addressed whole
files, as frugal's storage manager stores them) vs chunk-level (fixed-size chunks).

The series is a training run of a 1.3B-parameter decoder (GPT-style, hidden 2048, vocab
50304) saved in the Hugging Face Trainer layout, sized down 90x to fit this machine: each
checkpoint holds bf16 weights (2 B/param) and the Adam optimizer state (fp32 master weights,
exp_avg, exp_avg_sq: 12 B/param), i.e. 14 B/param, about 202 MB per checkpoint for the
14.4M parameters of the sized-down model (the full model: 18.2 GB).

Change rates between two checkpoints (hundreds of optimizer steps apart):
  - weights, master weights and both Adam moments of every trained parameter change: every
    fp32 value changes; a bf16 value may round to the same bits, but a 4 MiB chunk holds 2M of
    them and is identical only if all are, which never happens -- so changed tensors are
    written as fresh pseudo-random bytes, which gives the same dedup result;
  - identical in every checkpoint: config.json, generation_config.json, tokenizer.json (2.1 MB,
    the size of GPT-NeoX's), tokenizer_config.json, special_tokens_map.json,
    training_args.bin;
  - small files that change: trainer_state.json (log history grows), scheduler.pt,
    rng_state.pth, dataloader_state.json (the sample position);
  - scenario `pretrain`: nothing frozen. Scenario `frozen-embed`: a fine-tune with the token
    embedding (50304 x 2048 = 103M of the 1.3B parameters, 7.9 %) frozen -- its bf16 bytes are
    identical in every checkpoint (first tensor of model.safetensors), and the optimizer holds
    no state for it.

Usage: python3 bench/storage_dedup.py [--checkpoints 12] [--runs 3] [--dir DIR] [--json OUT]
Timing: median of --runs passes over the files on disk (page cache warm: it measures hashing,
not the disk).
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import tempfile
import time

FULL_PARAMS = 1.3e9
SCALE = 90
HIDDEN = 2048
VOCAB = 50304
EMBED_FRACTION = VOCAB * HIDDEN / FULL_PARAMS  # 7.9 %
MiB = 1 << 20

SAME_EVERY_TIME = {
    "config.json": 700,
    "generation_config.json": 120,
    "tokenizer.json": 2_114_000,
    "tokenizer_config.json": 3_600,
    "special_tokens_map.json": 100,
    "training_args.bin": 5_200,
}
CHANGING_SMALL = {
    "scheduler.pt": 1_064,
    "rng_state.pth": 14_600,
    "dataloader_state.json": 300,
}


def blob(seed, n):
    """n deterministic pseudo-random bytes for `seed` (a string)."""
    return random.Random(seed).randbytes(n)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def make_checkpoint(root, k, scenario):
    params = int(FULL_PARAMS / SCALE)
    frozen = int(params * EMBED_FRACTION) if scenario == "frozen-embed" else 0
    trained = params - frozen
    d = os.path.join(root, f"checkpoint-{(k + 1) * 500}")
    os.makedirs(d)
    # model.safetensors: a JSON header (same every time), then the embedding, then the rest.
    header = json.dumps({"wte": [0, 2 * frozen or 2 * params], "rest": [2 * frozen, 2 * params]})
    header = header.encode()
    embed = blob("embed-frozen", 2 * frozen) if frozen else b""
    weights = len(header).to_bytes(8, "little") + header + embed + blob(f"w-{k}", 2 * trained)
    write(os.path.join(d, "model.safetensors"), weights)
    # optimizer.pt: fp32 master, exp_avg, exp_avg_sq of the trained parameters.
    write(os.path.join(d, "optimizer.pt"), blob(f"opt-{k}", 12 * trained))
    for name, size in SAME_EVERY_TIME.items():
        write(os.path.join(d, name), blob(name, size))
    for name, size in CHANGING_SMALL.items():
        write(os.path.join(d, name), blob(f"{name}-{k}", size))
    log = ",".join(f'{{"step": {s}, "loss": {3.0 - s / 1e5:.4f}}}'
                   for s in range(0, (k + 1) * 500, 10))
    write(os.path.join(d, "trainer_state.json"), ('{"log_history": [' + log + "]}").encode())
    return d


def export_final(root, last):
    """What trainer.save_model() writes at the end: the last weights, config and tokenizer,
    byte-identical to the last checkpoint's (the seeds' "duplicate model checkpoints")."""
    d = os.path.join(root, "final-model")
    os.makedirs(d)
    for name in ["model.safetensors", "config.json", "generation_config.json", "tokenizer.json",
                 "tokenizer_config.json", "special_tokens_map.json"]:
        shutil.copyfile(os.path.join(last, name), os.path.join(d, name))


def files_of(root):
    out = []
    for dirpath, _, names in os.walk(root):
        for n in sorted(names):
            out.append(os.path.join(dirpath, n))
    return sorted(out)


def file_level(files):
    """Whole files by SHA-256 (the live store's content addressing)."""
    seen = {}
    logical = 0
    for p in files:
        h = hashlib.sha256()
        with open(p, "rb") as f:
            while True:
                b = f.read(4 * MiB)
                if not b:
                    break
                h.update(b)
        size = os.path.getsize(p)
        logical += size
        seen.setdefault(h.hexdigest(), size)
    return logical, sum(seen.values())


def chunk_level(files, chunk):
    """Fixed-size chunks by SHA-256 (offsets from each file's start)."""
    seen = {}
    logical = 0
    for p in files:
        with open(p, "rb") as f:
            while True:
                b = f.read(chunk)
                if not b:
                    break
                logical += len(b)
                seen.setdefault(hashlib.sha256(b).digest(), len(b))
    return logical, sum(seen.values())


def measure(fn, runs):
    times, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return result, statistics.median(times), times


def run_scenario(scenario, checkpoints, runs, base):
    root = tempfile.mkdtemp(prefix=f"dedup-{scenario}-", dir=base)
    try:
        t = time.perf_counter()
        last = None
        for k in range(checkpoints):
            last = make_checkpoint(root, k, scenario)
        gen_s = time.perf_counter() - t
        series = files_of(root)
        export_final(root, last)
        everything = files_of(root)
        rows = []
        for what, files in [("series", series), ("series + final export", everything)]:
            methods = [
                ("file (whole files, SHA-256)", lambda: file_level(files)),
                ("chunk 4 MiB (fixed, SHA-256)", lambda: chunk_level(files, 4 * MiB)),
                ("chunk 64 KiB (fixed, SHA-256)", lambda: chunk_level(files, 64 * 1024)),
            ]
            for name, fn in methods:
                (logical, stored), med, times = measure(fn, runs)
                rows.append({
                    "files": what,
                    "method": name,
                    "logical_mb": logical / 1e6,
                    "stored_mb": stored / 1e6,
                    "ratio": logical / stored,
                    "median_s": med,
                    "runs_s": times,
                    "mb_per_s": logical / 1e6 / med,
                })
        return {"scenario": scenario, "checkpoints": checkpoints, "generate_s": gen_s,
                "checkpoint_mb": sum(os.path.getsize(p) for p in series) / 1e6 / checkpoints,
                "rows": rows}
    finally:
        shutil.rmtree(root)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checkpoints", type=int, default=12)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default=None, help="where to write the series (default: TMPDIR)")
    ap.add_argument("--scenario", choices=["pretrain", "frozen-embed", "both"], default="both")
    ap.add_argument("--json", default=None, help="also write the results here")
    a = ap.parse_args()
    scenarios = ["pretrain", "frozen-embed"] if a.scenario == "both" else [a.scenario]
    results = []
    for s in scenarios:
        r = run_scenario(s, a.checkpoints, a.runs, a.dir)
        results.append(r)
        print(f"\n{s}: {r['checkpoints']} checkpoints of {r['checkpoint_mb']:.1f} MB "
              f"(1.3B params / {SCALE}, bf16 weights + fp32 Adam), "
              f"generated in {r['generate_s']:.1f} s")
        print(f"{'files':<22} {'method':<30} {'logical MB':>11} {'stored MB':>10} {'ratio':>7} "
              f"{'median s':>9} {'MB/s':>7}")
        for row in r["rows"]:
            print(f"{row['files']:<22} {row['method']:<30} {row['logical_mb']:>11.1f} "
                  f"{row['stored_mb']:>10.1f} "
                  f"{row['ratio']:>7.3f} {row['median_s']:>9.2f} {row['mb_per_s']:>7.0f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
