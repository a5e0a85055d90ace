"""`frugal serve --backend local` with a `cluster:` file: the host's own GPUs are used,
never the file's. A file that invents devices, names two regions or two pools is an error
at start naming the key; a file that matches the host places and prices it, and two jobs
get different GPUs (they used to get CUDA_VISIBLE_DEVICES=0 both, on 8 fictitious H100s)."""
import os
import subprocess

from harness import ALPHA, Daemon, args, check

a = args()
REGION = """  - name: {name}
    timezone: America/Los_Angeles
    electricity: {{usd_per_mwh: 80, carbon_g_per_kwh: 300}}
    pools:
{pools}"""
POOL = """      - name: {name}
        capacity: {capacity}
        node_groups:
          - {{name: g-{name}, count: {count}, gpu_model: {model}, gpus_per_node: {gpus}}}
"""


def cluster(regions):
    return "regions:\n" + "".join(
        REGION.format(name=r, pools="".join(POOL.format(**p) for p in pools))
        for r, pools in regions)


def refused(text, want):
    d = Daemon(a.frugal, gpus=2, extra="cluster: cluster.yaml\n")
    try:
        with open(os.path.join(d.dir, "cluster.yaml"), "w") as f:
            f.write(text)
        p = subprocess.run([a.frugal, "serve", "--config", d.config, "--db", d.db],
                           capture_output=True, text=True, timeout=30, cwd=d.dir)
        check(p.returncode == 1 and want in p.stderr and "cluster.yaml" in p.stderr,
              f"wanted exit 1 naming {want!r}: rc={p.returncode} {p.stderr}")
    finally:
        d.cleanup(a.keep)


l4 = {"name": "host", "capacity": "owned", "count": 1, "model": "L4", "gpus": 2}
h100 = {"name": "host", "capacity": "owned", "count": 1, "model": "H100", "gpus": 8}
refused(cluster([("here", [h100])]), "node_groups")
refused(cluster([("here", [dict(l4, count=2)])]), "node_groups")
refused(cluster([("here", [l4]), ("there", [dict(l4, name="other")])]), "regions")
refused(cluster([("here", [l4, dict(l4, name="second")])]), "pools")

d = Daemon(a.frugal, gpus=2, extra="cluster: cluster.yaml\n")
try:
    with open(os.path.join(d.dir, "cluster.yaml"), "w") as f:
        f.write(cluster([("here", [dict(l4, capacity="reserved")])]))
    d.start()
    s, nodes = d.request("GET", "/v1/nodes", token=ALPHA)
    gpus = [g for n in nodes["nodes"] for g in n["gpus"]]
    check(s == 200 and len(nodes["nodes"]) == 1 and len(gpus) == 2
          and nodes["nodes"][0]["name"] == "testnode", f"nodes: {nodes}")
    jobs = [d.submit({"command": 'echo "cvd=$CUDA_VISIBLE_DEVICES"; sleep 1'}) for _ in range(2)]
    for j in jobs:
        d.wait_state(j, ["completed"])
    seen = sorted(d.read_log(j).strip() for j in jobs)
    check(seen == ["cvd=0", "cvd=1"], f"two jobs, GPUs {seen}")
    check("region 'here' and pool 'host'" in d.log_text(), d.log_text())
finally:
    d.cleanup(a.keep)
print("ok")
