// Starts `frugal serve --backend dry-run` on a free loopback port with a temporary database,
// config and cluster file, two team tokens (alpha, beta) and the admin's, as the python
// integration tests do (tests/service/harness.py: the same trial tokens of
// examples/local.yaml), and stops it. The dry-run backend runs a started job until it is
// stopped, so a job stays `running` until cancelled.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ALPHA = 'alpha-dev-token';
export const BETA = 'beta-dev-token';
export const ADMIN = 'admin-dev-token';
const HASHES = {
  [ALPHA]: '96b19de18b9c05f8b1befddab64f030fe3203ba6f76814ce9b690eec08f5f8ce',
  [BETA]: 'd29026ad4ad16686374492f805df401d41a97843377c047a6e268094fb8e2128',
  [ADMIN]: '78abf365bb5655ddc086c68b35f02e42b589a9afabb58684be7af259d96b492a',
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Serve {
  /**
   * nodes × gpusPerNode L4 GPUs in one owned pool. `policy`: the engine profile (fifo keeps
   * a job queued behind a full cluster, nothing preempted or moved).
   */
  constructor(frugal, { nodes = 2, gpusPerNode = 4, policy = 'fifo', extra = '' } = {}) {
    this.frugal = frugal;
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'frugal-ui-'));
    this.nodes = nodes;
    this.gpusPerNode = gpusPerNode;
    this.policy = policy;
    this.extra = extra;
    this.proc = null;
  }

  get url() { return `http://127.0.0.1:${this.port}`; }
  get gpus() { return this.nodes * this.gpusPerNode; }

  async start() {
    this.port = await freePort();
    writeFileSync(path.join(this.dir, 'cluster.yaml'), `regions:
  - name: here
    pools:
      - name: l4
        capacity: owned
        node_groups:
          - {name: n, count: ${this.nodes}, gpu_model: L4, gpus_per_node: ${this.gpusPerNode}}
`);
    this.config = path.join(this.dir, 'serve.yaml');
    writeFileSync(this.config, `listen: 127.0.0.1:${this.port}
backend: dry-run
cluster: cluster.yaml
policy: ${this.policy}
max_request_bytes: 65536
read_snapshot_s: 0
teams:
  alpha: {token_sha256: ${HASHES[ALPHA]}}
  beta: {token_sha256: ${HASHES[BETA]}}
admin: {token_sha256: ${HASHES[ADMIN]}}
${this.extra}
`);
    this.logPath = path.join(this.dir, 'serve.log');
    const log = openSync(this.logPath, 'a');
    this.proc = spawn(this.frugal, ['serve', '--config', this.config, '--db', path.join(this.dir, 'f.db')],
      { cwd: this.dir, stdio: ['ignore', log, log] });
    this.exited = null;
    this.proc.on('exit', (code, sig) => { this.exited = { code, sig }; });
    this.proc.on('error', (e) => { this.exited = { error: e.message }; });
    // A test that dies leaves no daemon behind.
    this.onExit = () => { try { this.proc?.kill('SIGKILL'); } catch { /* gone */ } };
    process.on('exit', this.onExit);
    for (let i = 0; i < 150; i++) {
      if (this.exited) throw new Error(`serve exited (${JSON.stringify(this.exited)}):\n${this.logText()}`);
      try {
        const r = await fetch(`${this.url}/healthz`);
        if (r.status === 200) return this;
      } catch { /* not yet */ }
      await sleep(100);
    }
    throw new Error(`serve did not answer /healthz in 15 s:\n${this.logText()}`);
  }

  logText() {
    try { return readFileSync(this.logPath, 'utf8').slice(-4000); } catch { return ''; }
  }

  async stop() {
    if (this.proc && !this.exited) {
      const gone = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGTERM');
      const t = setTimeout(() => this.proc.kill('SIGKILL'), 15000);
      await gone;
      clearTimeout(t);
    }
    if (this.onExit) process.off('exit', this.onExit);
    this.proc = null;
    if (!process.env.FRUGAL_UI_KEEP) rmSync(this.dir, { recursive: true, force: true });
  }

  /** One API call: [status, parsed JSON or text]. */
  async request(method, p, { body, token } = {}) {
    const headers = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const r = await fetch(this.url + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    try { return [r.status, JSON.parse(text)]; } catch { return [r.status, text]; }
  }

  async submit(body, token = ALPHA) {
    const [s, r] = await this.request('POST', '/v1/jobs', { body, token });
    if (s !== 201) throw new Error(`submit ${JSON.stringify(body)} answered ${s} ${JSON.stringify(r)}`);
    return r.id;
  }

  /** Submits `count` jobs made by make(i), `parallel` requests at a time; their ids. */
  async submitMany(count, make, token = ALPHA, parallel = 16) {
    const ids = new Array(count);
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        ids[i] = await this.submit(make(i), token);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    return ids;
  }

  async job(id, token = ALPHA) {
    const [s, r] = await this.request('GET', `/v1/jobs/${id}`, { token });
    if (s !== 200) throw new Error(`GET job ${id} answered ${s} ${JSON.stringify(r)}`);
    return r;
  }

  async cancel(id, token = ALPHA) {
    const [s, r] = await this.request('POST', `/v1/jobs/${id}/cancel`, { token });
    if (s >= 300) throw new Error(`cancel ${id} answered ${s} ${JSON.stringify(r)}`);
    return r;
  }
}
