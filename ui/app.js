// frugal live dashboard (docs/API.md, "Dashboard"): plain JavaScript, no framework, no build
// step. Everything it shows comes from the service's /v1 API with the team token the user
// typed, kept in sessionStorage (never in the URL). Polls every 5 s (?poll=MS overrides) and
// updates the page in place, so focus and scroll stay where the user left them. Above 1,000
// nodes (?groups_above=N overrides) the node section shows groups (GET /v1/nodes?summary=1).
"use strict";

(function () {
  const TOKEN_KEY = "frugal.token";
  const PAGE = 50;                // jobs per page ("More jobs" adds one)
  const MAX_LIMIT = 1000;         // the API's largest page
  const AGGREGATE_ABOVE = 500;    // nodes: above this, one cell per node instead of per GPU
  const GROUPS_ABOVE = 1000;      // nodes: above this, groups (pool, model, state) by default
  const WAITING = new Set(["queued", "deferred", "preempted"]);
  const FINAL = new Set(["completed", "failed", "cancelled", "unknown"]);
  const TIERS = ["core", "important", "general"];
  const WASTE_NAMES = {
    idle_allocated_usd: "Idle allocated",
    idle_unallocated_usd: "Idle unallocated",
    stranded_usd: "Stranded by fragmentation",
    rework_usd: "Rework after failure or preemption",
    peak_premium_usd: "Peak-price premium",
    oversized_usd: "Oversized GPU",
    storage_tier_usd: "Storage on the wrong tier",
    duplicate_storage_usd: "Duplicate storage",
  };

  const $ = (id) => document.getElementById(id);
  const state = {
    token: null,
    shownLimit: PAGE,       // how many of the newest jobs the table holds
    timer: null,
    polling: false,
    ledgerJobs: new Map(),  // job id → {run_s, total_usd} from the last /v1/ledger
    usage: null,            // the last GET /v1/usage?window=24h
    nodeCells: [],
    showAllNodes: false,    // above groupsAbove(): the user asked for every node
    nodeMode: "",
    noShadows: false,       // GET /v1/shadow answered 404: none configured
    nodesNextAt: 0,         // Date.now() before which /v1/nodes is not asked again
  };

  function pollMs() {
    const v = Number(new URLSearchParams(window.location.search).get("poll"));
    return Number.isFinite(v) && v >= 100 ? v : 5000;
  }

  function groupsAbove() {
    const q = new URLSearchParams(window.location.search).get("groups_above");
    const v = Number(q);
    return q !== null && Number.isInteger(v) && v >= 0 ? v : GROUPS_ABOVE;
  }

  // ---- status messages (aria-live) ----
  function say(text, isError) {
    const s = $("status");
    s.textContent = text;
    s.classList.toggle("error", Boolean(isError));
  }

  // ---- the API ----
  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: { Authorization: "Bearer " + state.token }, cache: "no-store" };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, method + " " + path + ": the service did not answer (" + e.message + ")");
    }
    let data = null;
    try {
      data = await res.json();
    } catch (e) {
      data = null;
    }
    if (!res.ok) {
      const why = data && data.error ? data.error : res.statusText;
      throw new ApiError(res.status, method + " " + path + ": " + res.status + " " + why);
    }
    return data;
  }

  // ---- login / logout ----
  function showLogin(message) {
    stopPolling();
    state.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    $("dashboard").hidden = true;
    $("logout").hidden = true;
    $("login-section").hidden = false;
    $("policy").textContent = "";
    $("updated").textContent = "";
    resetViews();
    if (message) say(message, true);
    $("token").focus();
  }

  function resetViews() {
    $("jobs").tBodies[0].replaceChildren();
    $("nodes").replaceChildren();
    state.nodeCells = [];
    state.nodeMode = "";
    state.usage = null;
    state.showAllNodes = false;
    state.shownLimit = PAGE;
    state.ledgerJobs = new Map();
    state.noShadows = false;
    state.nodesNextAt = 0;
  }

  async function login(token) {
    state.token = token;
    try {
      await api("GET", "/v1/jobs?limit=1");
    } catch (e) {
      state.token = null;
      say(e.status === 401 ? "That token was not accepted (401). Check it and try again."
                           : e.message, true);
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    $("token").value = "";
    $("login-section").hidden = true;
    $("dashboard").hidden = false;
    $("logout").hidden = false;
    say("Logged in.", false);
    $("jobs-heading").focus();
    startPolling();
  }

  // ---- polling ----
  function startPolling() {
    stopPolling();
    state.polling = true;
    refresh();
  }

  function stopPolling() {
    state.polling = false;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
  }

  async function refresh() {
    if (!state.token) return;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    const results = await Promise.allSettled([
      fetchJobs(state.shownLimit).then(jobsWithLedger),
      loadNodes(),
      api("GET", "/v1/usage?window=24h").then(showUsage),
      api("GET", "/v1/alerts").then(showAlerts),
      api("GET", "/v1/policy").then(showPolicy),
      loadShadows(),
    ]);
    const failed = results.filter((r) => r.status === "rejected").map((r) => r.reason);
    if (failed.some((e) => e.status === 401)) {
      showLogin("The service refused the token (401): log in again.");
      return;
    }
    if (failed.some((e) => e.status === 403)) {
      showLogin("This token may not read the dashboard's data (403): use a team or admin token.");
      return;
    }
    if (failed.length) say(failed.map((e) => e.message).join("; "), true);
    else if ($("status").classList.contains("error")) say("", false);
    $("updated").textContent = "Updated " + new Date().toLocaleTimeString();
    if (state.polling) state.timer = setTimeout(refresh, pollMs());
  }

  // ---- formatting ----
  function usd(v) {
    if (v === null || v === undefined || !Number.isFinite(v)) return "—";
    return "$" + v.toFixed(Math.abs(v) < 10 ? 4 : 2);
  }

  function duration(s) {
    if (s === null || s === undefined || !Number.isFinite(s) || s < 0) return "—";
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.floor(s % 60);
    return h > 0 ? h + "h " + m + "m" : m > 0 ? m + "m " + sec + "s" : sec + "s";
  }

  function setText(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }

  // ---- jobs ----
  function runtimeOf(job) {
    const fromLedger = state.ledgerJobs.get(job.id);
    if (fromLedger && Number.isFinite(fromLedger.run_s)) return fromLedger.run_s;
    if (!job.started_at) return null;
    const end = job.finished_at || Date.now() / 1000;
    return end - job.started_at;
  }

  function gpusOf(job) {
    const n = job.placement && job.placement.gpus ? job.placement.gpus.length : job.gpus;
    return job.gpu_milli && job.gpu_milli !== 1000 ? n + " × " + job.gpu_milli / 1000 : String(n);
  }

  function allowed(job) {
    const acts = [];
    if (!FINAL.has(job.state) && !job.cancel_requested) acts.push("cancel");
    if (WAITING.has(job.state) && !job.held) acts.push("hold");
    if (job.held && !FINAL.has(job.state)) acts.push("release");
    return acts;
  }

  function newRow(job) {
    const tr = document.createElement("tr");
    tr.dataset.jobId = String(job.id);
    for (const f of ["id", "team", "name", "state", "gpus", "runtime", "cost", "tier", "priority"]) {
      const td = document.createElement("td");
      td.dataset.field = f;
      if (f === "id" || f === "gpus" || f === "runtime" || f === "cost") td.className = "num";
      tr.appendChild(td);
    }
    const acts = document.createElement("td");
    acts.className = "actions";
    acts.dataset.field = "actions";
    tr.appendChild(acts);
    return tr;
  }

  function cell(tr, field) {
    return tr.querySelector('td[data-field="' + field + '"]');
  }

  function updatePriority(td, job) {
    const open = !FINAL.has(job.state);
    let select = td.querySelector("select");
    if (!open) {
      if (select) td.replaceChildren();
      return;
    }
    if (!select) {
      const id = "tier-" + job.id;
      const label = document.createElement("label");
      label.className = "visually-hidden";
      label.htmlFor = id;
      label.textContent = "New tier for job " + job.id;
      select = document.createElement("select");
      select.id = id;
      for (const t of TIERS) select.add(new Option(t, t));
      select.value = job.tier;
      const set = document.createElement("button");
      set.type = "button";
      set.dataset.action = "priority";
      set.textContent = "Set";
      set.setAttribute("aria-label", "Set the tier of job " + job.id);
      td.replaceChildren(label, select, set);
    }
  }

  function updateActions(td, job) {
    const want = allowed(job);
    const have = Array.from(td.querySelectorAll("button")).map((b) => b.dataset.action);
    if (want.join() === have.join()) return;
    // Keep the buttons that stay (the focused one among them keeps its focus).
    for (const b of Array.from(td.querySelectorAll("button")))
      if (!want.includes(b.dataset.action)) b.remove();
    let prev = null;
    for (const a of want) {
      let b = td.querySelector('button[data-action="' + a + '"]');
      if (!b) {
        b = document.createElement("button");
        b.type = "button";
        b.dataset.action = a;
        b.textContent = a.charAt(0).toUpperCase() + a.slice(1);
        b.setAttribute("aria-label", b.textContent + " job " + job.id);
        td.insertBefore(b, prev ? prev.nextSibling : td.firstChild);
      }
      prev = b;
    }
  }

  function updateRow(tr, job) {
    const cost = state.ledgerJobs.get(job.id);
    setText(cell(tr, "id"), String(job.id));
    setText(cell(tr, "team"), job.team || "");
    setText(cell(tr, "name"), job.name || "");
    setText(cell(tr, "state"), job.state + (job.held ? " (held)" : "") +
                               (job.cancel_requested && !FINAL.has(job.state) ? " (cancelling)" : ""));
    setText(cell(tr, "gpus"), gpusOf(job));
    setText(cell(tr, "runtime"), duration(runtimeOf(job)));
    setText(cell(tr, "cost"), cost ? usd(cost.total_usd) : "—");
    setText(cell(tr, "tier"), job.tier || "");
    updatePriority(cell(tr, "priority"), job);
    updateActions(cell(tr, "actions"), job);
  }

  // The rows at once (run time and cost from the last ledger read), then the ledger of the
  // jobs shown only (?jobs=ID,...: every job's figures are megabytes on a busy service) and
  // the rows again with its figures.
  async function jobsWithLedger(page) {
    showJobs(page);
    const ids = page.jobs.map((j) => j.id);
    showLedger(await api("GET", "/v1/ledger" + (ids.length <= MAX_LIMIT ? "?jobs=" + ids.join(",") : "")));
    showJobs(page);
  }

  // The newest `count` jobs, a page of at most MAX_LIMIT at a time, each page from the last
  // one's next_cursor: {jobs, next_cursor} as one page of `count`.
  async function fetchJobs(count) {
    let jobs = [], cursor = null;
    do {
      const limit = Math.min(MAX_LIMIT, count - jobs.length);
      const page = await api("GET", "/v1/jobs?limit=" + limit + (cursor !== null ? "&cursor=" + cursor : ""));
      jobs = jobs.concat(page.jobs);
      cursor = page.next_cursor === undefined ? null : page.next_cursor;
    } while (cursor !== null && jobs.length < count);
    return { jobs, next_cursor: cursor };
  }

  // Rows are updated in place and only moved when out of order, so a focused button keeps focus.
  function showJobs(page) {
    const body = $("jobs").tBodies[0];
    const existing = new Map();
    for (const tr of Array.from(body.rows)) existing.set(tr.dataset.jobId, tr);
    let at = body.firstElementChild;
    for (const job of page.jobs) {
      const key = String(job.id);
      let tr = existing.get(key);
      existing.delete(key);
      if (!tr) tr = newRow(job);
      updateRow(tr, job);
      if (tr === at) at = at.nextElementSibling;
      else body.insertBefore(tr, at);
    }
    for (const tr of existing.values()) tr.remove();
    $("more").hidden = page.next_cursor === null;
    setText($("jobs-summary"), page.jobs.length ? "The newest " + page.jobs.length + " job(s)." +
                               (page.next_cursor ? " Older jobs: “More jobs”." : "")
                                                : "No jobs yet.");
  }

  async function act(tr, action) {
    const id = tr.dataset.jobId;
    const body = action === "priority" ? { tier: tr.querySelector("select").value } : undefined;
    try {
      await api("POST", "/v1/jobs/" + id + "/" + action, body);
      say("Job " + id + ": " + action + (body ? " " + body.tier : "") + " done.", false);
    } catch (e) {
      if (e.status === 401) return showLogin("The service refused the token (401): log in again.");
      say(e.message, true);
    }
    refresh();
  }

  // ---- nodes ----
  // The summary (a few groups) every poll; above groupsAbove() nodes it is what the page
  // shows unless the user asks for every node. /v1/nodes lists every GPU (about 5 MB at
  // 10,000 nodes): it is asked at most every poll, and no more often than every 10 times its
  // last answer took.
  async function loadNodes() {
    const summary = await api("GET", "/v1/nodes?summary=1");
    const large = summary.nodes > groupsAbove();
    const toggle = $("nodes-toggle");
    toggle.hidden = !large;
    setText(toggle, state.showAllNodes ? "Show groups" : "Show every node");
    toggle.setAttribute("aria-expanded", String(large && state.showAllNodes));
    if (large && !state.showAllNodes) {
      showGroups(summary);
      return;
    }
    $("node-groups-wrap").hidden = true;
    $("nodes").hidden = false;
    $("nodes-legend").hidden = false;
    const now = Date.now();
    if (now < state.nodesNextAt) return;
    const data = await api("GET", "/v1/nodes");
    const took = Date.now() - now;
    state.nodesNextAt = now + 10 * took;
    showNodes(data);
  }

  function pct(part, whole) {
    return whole > 0 ? Math.round((100 * part) / whole) + "%" : "—";
  }

  // One row per (pool, model, state) group: node and GPU counts, allocated, idle and failed
  // GPUs, mean measured utilisation.
  function showGroups(summary) {
    $("nodes").hidden = true;
    $("nodes-legend").hidden = true;
    $("node-groups-wrap").hidden = false;
    state.nodeMode = "";
    state.nodesNextAt = 0;
    const frag = document.createDocumentFragment();
    let allocated = 0, failed = 0;
    for (const g of summary.groups) {
      allocated += g.allocated_gpus;
      failed += g.failed_gpus;
      const tr = document.createElement("tr");
      tr.dataset.group = g.pool + "/" + g.gpu_model + "/" + g.state;
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = (g.pool || "—") + ", " + (g.gpu_model || "no GPU") + ", " + g.state;
      tr.appendChild(th);
      const vals = [
        String(g.nodes), String(g.gpus),
        g.allocated_gpus.toFixed(1) + " (" + pct(g.allocated_gpus, g.gpus) + ")",
        g.idle_gpus.toFixed(1), String(g.failed_gpus),
        g.mean_utilization === null ? "—" : Math.round(100 * g.mean_utilization) + "% of " +
                                            g.measured_gpus,
      ];
      const fields = ["nodes", "gpus", "allocated", "idle", "failed", "utilization"];
      vals.forEach((v, i) => {
        const td = document.createElement("td");
        td.className = "num";
        td.dataset.field = fields[i];
        td.textContent = v;
        tr.appendChild(td);
      });
      const bar = document.createElement("td");
      const m = document.createElement("meter");
      m.min = 0;
      m.max = 1;
      m.value = g.gpus > 0 ? g.allocated_gpus / g.gpus : 0;
      m.setAttribute("aria-label", "Allocated share of " + th.textContent);
      bar.appendChild(m);
      tr.appendChild(bar);
      frag.appendChild(tr);
    }
    $("node-groups").tBodies[0].replaceChildren(frag);
    setText($("nodes-summary"), summary.nodes + " node(s), " + summary.gpus + " GPU(s), " +
            pct(allocated, summary.gpus) + " allocated" + (failed ? ", " + failed + " on down nodes" : "") +
            ". Above " + groupsAbove() + " nodes: one row per pool, GPU model and state.");
  }

  function allocClass(frac) {
    if (frac <= 0) return "alloc-0";
    if (frac <= 0.25) return "alloc-1";
    if (frac <= 0.5) return "alloc-2";
    if (frac < 1) return "alloc-3";
    return "alloc-4";
  }

  function utilClass(u) {
    if (u === null || u === undefined || !Number.isFinite(u)) return "";
    return "util util-" + Math.min(4, Math.floor(u * 5));
  }

  function gpuUtil(g) {
    return g.telemetry && Number.isFinite(g.telemetry.utilization) ? g.telemetry.utilization : null;
  }

  // One cell: its class (allocation or down), its utilisation bar, its tooltip.
  function paint(c, cls, util, title) {
    if (c.className !== cls) c.className = cls;
    const uc = utilClass(util);
    let bar = c.firstElementChild;
    if (uc && !bar) {
      bar = document.createElement("span");
      c.appendChild(bar);
    }
    if (bar && !uc) bar.remove();
    else if (bar && bar.className !== uc) bar.className = uc;
    if (c.title !== title) c.title = title;
  }

  function nodeFigures(n) {
    let alloc = 0, utilSum = 0, utilN = 0;
    for (const g of n.gpus) {
      alloc += Math.min(1000, g.allocated_milli) / 1000;
      const u = gpuUtil(g);
      if (u !== null) { utilSum += u; utilN += 1; }
    }
    return { alloc, util: utilN ? utilSum / utilN : null };
  }

  function buildGrid(nodes, perNode) {
    const grid = $("nodes");
    const cells = [];
    const frag = document.createDocumentFragment();
    for (const n of nodes) {
      if (perNode) {
        const c = document.createElement("span");
        frag.appendChild(c);
        cells.push(c);
        continue;
      }
      const box = document.createElement("div");
      box.className = "node";
      for (let i = 0; i < n.gpus.length; i++) {
        const c = document.createElement("span");
        box.appendChild(c);
        cells.push(c);
      }
      frag.appendChild(box);
    }
    grid.replaceChildren(frag);
    grid.classList.toggle("per-node", perNode);
    return cells;
  }

  function showNodes(data) {
    const nodes = data.nodes || [];
    const perNode = nodes.length > AGGREGATE_ABOVE;
    const shape = (perNode ? "n" : "g") + nodes.length + ":" +
                  (perNode ? "" : nodes.map((n) => n.gpus.length).join(","));
    if (shape !== state.nodeMode) {
      state.nodeCells = buildGrid(nodes, perNode);
      state.nodeMode = shape;
    }
    let k = 0, gpus = 0, allocated = 0, down = 0, measured = 0, utilSum = 0;
    for (const n of nodes) {
      const f = nodeFigures(n);
      gpus += n.gpus.length;
      allocated += f.alloc;
      if (!n.up) down += 1;
      if (f.util !== null) { measured += 1; utilSum += f.util; }
      if (perNode) {
        const frac = n.gpus.length ? f.alloc / n.gpus.length : 0;
        const title = n.name + ": " + f.alloc.toFixed(1) + "/" + n.gpus.length + " " +
                      (n.gpu_model || "") + " allocated" + (n.up ? "" : ", down") +
                      (f.util !== null ? ", " + Math.round(f.util * 100) + "% busy" : "");
        paint(state.nodeCells[k++], "cell " + (n.up ? allocClass(frac) : "down"), f.util, title);
        continue;
      }
      for (const g of n.gpus) {
        const u = gpuUtil(g);
        const title = n.name + " GPU " + g.index + " (" + (n.gpu_model || "") + "): " +
                      g.allocated_milli / 10 + "% allocated" + (n.up ? "" : ", node down") +
                      (u !== null ? ", " + Math.round(u * 100) + "% busy" : "") +
                      (g.jobs && g.jobs.length ? ", jobs " + g.jobs.join(" ") : "");
        paint(state.nodeCells[k++], "cell " + (n.up ? allocClass(g.allocated_milli / 1000) : "down"),
              u, title);
      }
    }
    const summary = nodes.length + " node(s), " + gpus + " GPU(s), " +
                    (gpus ? Math.round((100 * allocated) / gpus) : 0) + "% allocated" +
                    (down ? ", " + down + " down" : "") +
                    (measured ? ", " + Math.round((100 * utilSum) / measured) +
                                "% mean utilisation over " + measured + " measured node(s)"
                              : ", no utilisation telemetry") +
                    (perNode ? ". Above " + AGGREGATE_ABOVE + " nodes: one cell per node." : ".");
    setText($("nodes-summary"), summary);
    $("nodes").setAttribute("aria-label", "Node grid: " + summary);
  }

  // ---- ledger: totals and waste; usage: the 24-h burn and idle capacity ----
  function account(ledger) {
    // An admin's answer has the cluster's `cost`; a team's has its own account in by_team.
    if (ledger.cost) return { total: ledger.cost.total_usd, scope: "cluster" };
    const teams = Object.keys(ledger.by_team || {});
    if (teams.length === 1) return { total: ledger.by_team[teams[0]].total_usd, scope: "team " + teams[0] };
    return { total: null, scope: "your team (no cost recorded yet)" };
  }

  function idleUsd(waste) {
    return (waste.idle_unallocated_usd || 0) + (waste.stranded_usd || 0);
  }

  // A usage point's burn in the token's scope: the cluster's (admin), else the team's own.
  function burnOf(p, scope) {
    if (p.burn_usd_h !== undefined) return p.burn_usd_h;
    const team = scope.startsWith("team ") ? scope.slice(5) : "";
    return p.teams && Number.isFinite(p.teams[team]) ? p.teams[team] : null;
  }

  function showLedger(ledger) {
    state.ledgerJobs = new Map((ledger.jobs || []).map((j) => [j.id, j]));
    const acc = account(ledger);
    const waste = ledger.waste || {};
    const rows = [
      ["Scope", acc.scope],
      ["Cost since the service started", usd(acc.total)],
    ];
    const u = state.usage;
    const last = u && u.points.length ? u.points[u.points.length - 1] : null;
    if (last) {
      rows.push(["Burn rate (latest reading)", usd(burnOf(last, u.scope)) + " per hour"]);
      rows.push(["Idle capacity rate (cluster)", usd(last.idle_usd_h) + " per hour"]);
    }
    if (ledger.cost) {
      rows.push(["Idle capacity cost since start (unallocated + stranded)", usd(idleUsd(waste))]);
      if (Number.isFinite(ledger.provisioned_allocated_share))
        rows.push(["Share of provisioned GPU time allocated",
                   (100 * ledger.provisioned_allocated_share).toFixed(1) + "%"]);
    }
    rows.push(["As of", new Date(ledger.as_of * 1000).toLocaleString()]);
    const dl = $("cost-totals");
    const frag = document.createDocumentFragment();
    for (const [k, v] of rows) {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.textContent = v;
      frag.append(dt, dd);
    }
    dl.replaceChildren(frag);
    showWaste(waste);
  }

  // GET /v1/usage?window=24h: one point per bucket (time-weighted means), the last one partial.
  // The chart spans the window, or less while the service has less history (from its first
  // point); both lines are USD per hour on one scale.
  function showUsage(u) {
    state.usage = u;
    const pts = u.points || [];
    const t1 = u.as_of, t0 = Math.max(t1 - u.window_s, pts.length ? pts[0].at : t1);
    let max = 0;
    for (const p of pts) max = Math.max(max, burnOf(p, u.scope) || 0, p.idle_usd_h || 0);
    const line = (value) => pts.filter((p) => value(p) !== null && value(p) !== undefined)
      .map((p) => ((600 * (p.at + p.span_s / 2 - t0)) / Math.max(1, t1 - t0)).toFixed(1) + "," +
                  (118 - (116 * value(p)) / (max || 1)).toFixed(1))
      .join(" ");
    $("cost-line").setAttribute("points", line((p) => burnOf(p, u.scope)));
    $("idle-line").setAttribute("points", line((p) => p.idle_usd_h));
    $("cost-line").dataset.count = String(pts.length);
    $("cost-line").dataset.asOf = String(u.as_of);
    const span = pts.length ? new Date(pts[0].at * 1000).toLocaleTimeString() + " to " +
                              new Date(t1 * 1000).toLocaleTimeString() : "no readings yet";
    const every = u.interval_s >= 1 ? duration(u.interval_s) : u.interval_s + " s";
    setText($("chart-max"), "Top of the chart: " + usd(max) + " per hour");
    setText($("chart-span"), pts.length + " reading(s) of the last 24 h (" + span + "), every " + every + ".");
    const last = pts.length ? pts[pts.length - 1] : null;
    setText($("cost-chart-desc"), last
      ? "Cost burn " + usd(burnOf(last, u.scope)) + " per hour and idle capacity " +
        usd(last.idle_usd_h) + " per hour at the latest reading; at most " + usd(max) +
        " per hour over " + pts.length + " reading(s)."
      : "No readings yet.");
  }

  function showWaste(waste) {
    const total = Object.keys(WASTE_NAMES).reduce((sum, k) => sum + (waste[k] || 0), 0);
    const body = $("waste").tBodies[0];
    const frag = document.createDocumentFragment();
    for (const [k, name] of Object.entries(WASTE_NAMES)) {
      const v = waste[k] || 0;
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = name;
      const td = document.createElement("td");
      td.className = "num";
      td.textContent = usd(v);
      const share = document.createElement("td");
      const m = document.createElement("meter");
      m.min = 0;
      m.max = 1;
      m.value = total > 0 ? v / total : 0;
      m.setAttribute("aria-label", name + " share");
      share.append(m, " " + (total > 0 ? ((100 * v) / total).toFixed(1) : "0.0") + "%");
      tr.append(th, td, share);
      frag.appendChild(tr);
    }
    body.replaceChildren(frag);
  }

  // ---- alerts ----
  function showAlerts(data) {
    const list = $("alerts");
    const frag = document.createDocumentFragment();
    for (const a of data.active || []) {
      const li = document.createElement("li");
      const rule = document.createElement("span");
      rule.className = "rule";
      rule.textContent = a.rule + " — " + a.subject;
      li.append(rule, ": " + a.message + " (since " +
                      new Date(a.fired_at * 1000).toLocaleString() + ")");
      frag.appendChild(li);
    }
    if (!frag.childNodes.length) {
      const li = document.createElement("li");
      li.textContent = "No active alerts.";
      frag.appendChild(li);
    }
    const recent = (data.recent || []).length;
    if (recent) {
      const li = document.createElement("li");
      li.className = "note";
      li.textContent = recent + " recently resolved.";
      frag.appendChild(li);
    }
    list.replaceChildren(frag);
  }

  // ---- policy and shadows ----
  function showPolicy(p) {
    setText($("policy"), "Active policy: " + p.policy + " (" + p.source + ")");
  }

  // Shadows are configured at start: after a 404 the page stops asking until the next login.
  async function loadShadows() {
    if (state.noShadows) return;
    try {
      showShadows(await api("GET", "/v1/shadow"));
    } catch (e) {
      if (e.status === 404) {
        state.noShadows = true;
        $("shadows").hidden = true;
        return;
      }
      throw e;
    }
  }

  function shadowRow(name, fig) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = name;
    tr.appendChild(th);
    const f = fig || {};
    const vals = [
      f.started, f.completed,
      f.wait_s ? duration(f.wait_s.p95) : "—", f.jct_s ? duration(f.jct_s.mean) : "—",
      usd(f.cost_usd), usd(f.waste_usd),
      Number.isFinite(f.gpu_utilization) ? (100 * f.gpu_utilization).toFixed(1) + "%" : "—",
      f.deadline_misses,
    ];
    for (const v of vals) {
      const td = document.createElement("td");
      td.className = "num";
      td.textContent = v === undefined || v === null ? "—" : String(v);
      tr.appendChild(td);
    }
    return tr;
  }

  function showShadows(data) {
    const frag = document.createDocumentFragment();
    if (data.real)
      frag.appendChild(shadowRow(data.real.policy + " (as it really ran)",
                                 data.real.windows && data.real.windows["24h"]));
    for (const s of data.shadows || [])
      frag.appendChild(shadowRow(s.policy + (s.active ? " (shadow of the active policy)" : ""),
                                 s.windows && s.windows["24h"]));
    $("shadow-table").tBodies[0].replaceChildren(frag);
    $("shadows").hidden = false;
  }

  // ---- wiring ----
  function init() {
    $("login-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const token = $("token").value.trim();
      if (!token) return say("Type a team token first.", true);
      login(token);
    });
    $("logout").addEventListener("click", () => {
      showLogin("");
      say("Logged out.", false);
    });
    $("nodes-toggle").addEventListener("click", () => {
      state.showAllNodes = !state.showAllNodes;
      refresh();
    });
    $("more").addEventListener("click", () => {
      state.shownLimit += PAGE;
      refresh();
    });
    $("jobs").tBodies[0].addEventListener("click", (ev) => {
      const b = ev.target.closest("button[data-action]");
      if (!b) return;
      act(b.closest("tr"), b.dataset.action);
    });
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) login(saved);
    else $("token").focus();
  }

  document.addEventListener("DOMContentLoaded", init);
})();
