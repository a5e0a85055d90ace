"""`frugal serve` on the real calendar (issue 18, item 3). The service used to read its price
series and time-of-use rules at "now" wrapped onto the series' own year (2023): a Tuesday
could count as a weekend, a holiday fell on another day, and a price came from another hour.
Now GET /v1/regions shows the region's real local time, weekday, holiday and off-peak state
and the price of the real hour; a series that ends before now is never wrapped: the price
is the configured fallback's, or else the series' mean for the same local hour of the week
over its last covered year, and the alert price_series_stale names the region.

Expectations are computed here from the real clock (zoneinfo), so the test holds on any
date."""
import csv
import datetime as dt
import os
import time
from zoneinfo import ZoneInfo

from harness import ADMIN, ALPHA, Daemon, args, check

a = args()
TZ = "America/Los_Angeles"
PRICES = os.path.join(a.source, "data/prices/US-CAL-CISO/2023.csv")
CARBON = os.path.join(a.source, "data/carbon/US-CAL-CISO/2023.csv")
CLUSTER = """regions:
  - name: here
    timezone: {tz}
    electricity: {electricity}
    time_of_use: {{offpeak: ["01:00-02:00"], weekends: true, holidays: {holidays}, discount: 0.3}}
    pools:
      - name: host
        capacity: reserved
        node_groups: [{{name: g, count: 1, gpu_model: L4, gpus_per_node: 2}}]
"""


def series(path, column_prefix):
    """(unix hour → value) of a bundled CSV."""
    out = {}
    with open(path, newline="") as f:
        rows = csv.reader(f)
        head = next(rows)
        col = next(i for i, h in enumerate(head) if h.startswith(column_prefix))
        for r in rows:
            t = dt.datetime.fromisoformat(r[0].replace("Z", "+00:00"))
            if t.tzinfo is None:
                t = t.replace(tzinfo=dt.timezone.utc)
            out[int(t.timestamp())] = float(r[col])
    return out


def slot(unix):
    local = dt.datetime.fromtimestamp(unix, ZoneInfo(TZ))
    return local.weekday() * 24 + local.hour


def week_mean(values, unix):
    """The series' mean over the same local hour of the week in its last 52 weeks."""
    hours = sorted(values)[-52 * 7 * 24:]
    picked = [values[h] for h in hours if slot(h) == slot(unix)]
    return sum(picked) / len(picked)


def local_day(unix, days=0):
    return (dt.datetime.fromtimestamp(unix, ZoneInfo(TZ)) + dt.timedelta(days=days)).date()


def region_now(d):
    s, body = d.request("GET", "/v1/regions", token=ALPHA)
    check(s == 200 and len(body["regions"]) == 1, f"regions: {s} {body}")
    return body["as_of"], body["regions"][0]


def check_calendar(r, as_of, holiday):
    local = dt.datetime.fromtimestamp(int(as_of), ZoneInfo(TZ))
    check(r["local_time"] == local.strftime("%Y-%m-%dT%H:%M:%S%z"),
          f"local time {r['local_time']} != {local.isoformat()}")
    check(r["weekday"] == local.strftime("%A"), f"weekday {r['weekday']} on {local}")
    check(r["holiday"] == holiday, f"holiday {r['holiday']} on {local}")
    off = holiday or local.weekday() >= 5 or local.hour == 1
    check(r["offpeak"] == off, f"off-peak {r['offpeak']} on {local} (holiday {holiday})")


def stale_alerts(d):
    s, body = d.request("GET", "/v1/alerts", token=ADMIN)
    check(s == 200, f"alerts: {s} {body}")
    return [x for x in body["active"] if x["rule"] == "price_series_stale"]


def daemon(electricity, holidays, fallback=""):
    d = Daemon(a.frugal, gpus=2, extra="cluster: cluster.yaml\n" + fallback)
    with open(os.path.join(d.dir, "cluster.yaml"), "w") as f:
        f.write(CLUSTER.format(tz=TZ, electricity=electricity, holidays=holidays))
    return d


now = time.time()
prices, carbon = series(PRICES, "Price"), series(CARBON, "Carbon Intensity")

# 1. A 2023 series, today a holiday: no fallback, so the same-hour-of-week mean, and an alert.
days = [str(local_day(now, k)) for k in (-1, 0, 1)]
d = daemon(f"{{prices: {PRICES}, carbon: {CARBON}}}", "[" + ", ".join(days) + "]")
try:
    d.start()
    as_of, r = region_now(d)
    check_calendar(r, as_of, holiday=str(local_day(as_of)) in days)
    check(r["price_source"] == "hour_of_week_mean" and r["stale"], f"region: {r}")
    check(r["price_series_end"] == "2024-01-01T00:00:00Z", f"series end: {r}")
    want = week_mean(prices, as_of)
    check(abs(r["electricity_usd_per_mwh"] - want) < 1e-6,
          f"price {r['electricity_usd_per_mwh']} != same-hour-of-week mean {want}")
    want = week_mean(carbon, as_of)
    check(abs(r["carbon_g_per_kwh"] - want) < 1e-6,
          f"carbon {r['carbon_g_per_kwh']} != same-hour-of-week mean {want}")
    alerts = stale_alerts(d)
    check(len(alerts) == 1 and alerts[0]["subject"] == "region here"
          and "same hour of the week" in alerts[0]["message"], f"alerts: {alerts}")
finally:
    d.cleanup(a.keep)

# 2. A series covering now (written here): its own value, no alert; no holiday today.
start = int(now // 3600) * 3600 - 48 * 3600
d = daemon("{prices: live.csv}", '["2000-01-01"]', "price_fallback: {usd_per_mwh: 999}\n")
try:
    with open(os.path.join(d.dir, "live.csv"), "w") as f:
        f.write("Datetime (UTC),Price (USD/MWh)\n")
        for i in range(96):
            t = dt.datetime.fromtimestamp(start + 3600 * i, dt.timezone.utc)
            f.write(f"{t:%Y-%m-%d %H:%M:%S}+00:00,{10 + i}\n")
    d.start()
    as_of, r = region_now(d)
    check_calendar(r, as_of, holiday=False)
    want = 10 + (int(as_of) // 3600 * 3600 - start) // 3600
    check(r["price_source"] == "series" and not r["stale"]
          and r["electricity_usd_per_mwh"] == want, f"region {r}, wanted price {want}")
    check(not stale_alerts(d), f"alerts: {stale_alerts(d)}")
finally:
    d.cleanup(a.keep)

# 3. A flat fallback prices the uncovered hours.
d = daemon(f"{{prices: {PRICES}}}", "[]", "price_fallback: {usd_per_mwh: 123}\n")
try:
    d.start()
    _, r = region_now(d)
    check(r["price_source"] == "fallback_flat" and r["electricity_usd_per_mwh"] == 123
          and r["stale"], f"region: {r}")
    alerts = stale_alerts(d)
    check(len(alerts) == 1 and "price_fallback (flat 123 USD/MWh)" in alerts[0]["message"],
          f"alerts: {alerts}")
finally:
    d.cleanup(a.keep)

# 4. A command fallback, refreshed every second; a failing refresh keeps the last good hours.
FEED = """import datetime as dt, sys, time
v = open("feed-value").read().strip()
if v == "fail":
    sys.stderr.write("feed down\\n")
    sys.exit(3)
h = int(time.time() // 3600) * 3600 - 3600
print("Datetime (UTC),Price (USD/MWh)")
for i in range(48):
    t = dt.datetime.fromtimestamp(h + 3600 * i, dt.timezone.utc)
    print(f"{t:%Y-%m-%d %H:%M:%S}+00:00,{v}")
"""
d = daemon(f"{{prices: {PRICES}}}", "[]",
           "price_fallback: {command: python3 feed.py, refresh_s: 1}\n")
try:
    with open(os.path.join(d.dir, "feed.py"), "w") as f:
        f.write(FEED)
    with open(os.path.join(d.dir, "feed-value"), "w") as f:
        f.write("41.5")
    d.start()
    _, r = region_now(d)
    check(r["price_source"] == "fallback_series" and r["electricity_usd_per_mwh"] == 41.5,
          f"region: {r}")

    def wait_region(pred, what):
        for _ in range(100):
            _, r = region_now(d)
            if pred(r):
                return r
            time.sleep(0.1)
        check(False, f"{what}: {r}")

    with open(os.path.join(d.dir, "feed-value"), "w") as f:
        f.write("77")
    wait_region(lambda r: r["electricity_usd_per_mwh"] == 77, "refreshed price")
    with open(os.path.join(d.dir, "feed-value"), "w") as f:
        f.write("fail")
    r = wait_region(lambda r: "price_fallback_error" in r, "failed refresh")
    check("exit status 3" in r["price_fallback_error"] and "feed down" in r["price_fallback_error"]
          and r["electricity_usd_per_mwh"] == 77, f"region after a failed refresh: {r}")
    check("price_fallback: price_fallback.command: exit status 3" in d.log_text(), d.log_text())
finally:
    d.cleanup(a.keep)
print("ok")
