# Helpers shared by the benchmarks that run a `frugal serve` daemon (bench/serve_load.sh,
# bench/agent_overhead.sh, bench/scrape_cost.sh). Source it; it defines:
#   free_port                      prints a free TCP port on 127.0.0.1
#   synthetic_cluster FILE NODES   writes a cluster of NODES 8-GPU A100-80GB nodes, named
#                                  n-0 .. n-(NODES-1), to FILE
#   start_serve CONFIG DB LOG PORT starts `$FRUGAL serve` (FRUGAL must be set) in the
#                                  background, sets serve_pid and waits (20 s at most) for
#                                  /healthz; on failure prints the log's tail and exits 1
#   stop_serve                     stops it (and is safe to call when none runs)
#   cpu_ns PID                     CPU time of every thread of PID, ns (the first field of
#                                  schedstat: /proc/PID/stat's 10 ms ticks are too coarse
#                                  for about 0.1 % of a core over a minute)
#   hwm_kib PID                    peak RSS of PID (VmHWM), KiB

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

synthetic_cluster() {
  cat >"$1" <<YAML
regions:
  - name: default
    pools:
      - name: synthetic
        node_groups:
          - {name: n, count: $2, gpu_model: A100-80GB, gpus_per_node: 8}
YAML
}

serve_pid=
start_serve() {
  "$FRUGAL" serve --config "$1" --db "$2" >"$3" 2>&1 &
  serve_pid=$!
  for _ in $(seq 200); do
    curl -fs "http://127.0.0.1:$4/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "serve did not come up:" >&2
  tail -n 5 "$3" >&2
  exit 1
}

stop_serve() {
  [[ -n $serve_pid ]] || return 0
  kill "$serve_pid" 2>/dev/null || true
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=
}

cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%d", s}'; }
hwm_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }
