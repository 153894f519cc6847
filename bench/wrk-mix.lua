-- wrk script: POSTs a round-robin mix of AdmissionReviews and prints one RESULT line.
--
-- Environment:
--   BENCH_REVIEWS   directory holding the review files (bench/reviews)
--   BENCH_MIX       space-separated PATH=FILE items (default: the four-request mix below)
--   BENCH_RATE      if set, requests/s of each wrk thread, sent on an even schedule: one send
--                   slot every 1/rate s, each request takes the next free slot, whichever
--                   connection is free (a constant offered rate, as wrk2 -R or oha -q; wrk's timer
--                   has 1 ms steps, so the sends of one millisecond leave together)
local dir = os.getenv("BENCH_REVIEWS") or "bench/reviews"
local mix = os.getenv("BENCH_MIX")
  or "/validate=ingress-3hosts.json /mutate=service-lb.json /validate=serviceaccount.json /validate=ingress-denied.json"
local rate = tonumber(os.getenv("BENCH_RATE") or "")

local requests = {}
local next_index = 0

-- Built in init(): wrk sets the Host header just before calling it (HTTP/1.1 requires one).
function init(_)
  for item in string.gmatch(mix, "%S+") do
    local path, file = string.match(item, "^([^=]+)=(.+)$")
    local f = assert(io.open(dir .. "/" .. file, "rb"), "cannot open " .. dir .. "/" .. file)
    local body = f:read("*a")
    f:close()
    table.insert(requests, wrk.format("POST", path .. "?timeout=10s", {
      ["Content-Type"] = "application/json",
      ["Accept"] = "application/json, */*",
      ["User-Agent"] = "kube-apiserver-admission",
    }, body))
  end
end

function request()
  next_index = next_index % #requests + 1
  return requests[next_index]
end

-- Sends that left more than 1 ms after their slot, because no connection was free in time (with
-- BENCH_RATE): their wait is not in wrk's latency, so a non-zero count means the offered rate
-- was not kept and the percentiles flatter the server.
late = 0

if rate then
  local ffi = require("ffi")
  ffi.cdef([[
    typedef struct { long tv_sec; long tv_nsec; } zoneguard_bench_timespec;
    int clock_gettime(int clock, zoneguard_bench_timespec *now);
  ]])
  local CLOCK_MONOTONIC = 1
  local now = ffi.new("zoneguard_bench_timespec")
  local function now_ms()
    ffi.C.clock_gettime(CLOCK_MONOTONIC, now)
    return tonumber(now.tv_sec) * 1000 + tonumber(now.tv_nsec) / 1e6
  end
  local step_ms = 1000 / rate
  local next_slot_ms

  function delay()
    local t = now_ms()
    next_slot_ms = next_slot_ms or t
    local slot = next_slot_ms
    next_slot_ms = slot + step_ms
    if t - slot > 1 then
      late = late + 1
    end
    return math.max(0, slot - t)
  end
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, _)
  local e = summary.errors
  local late_sends = 0
  for _, thread in ipairs(threads) do
    late_sends = late_sends + (thread:get("late") or 0)
  end
  io.write(string.format(
    "RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d mean_us=%.1f "
      .. "connect_errors=%d read_errors=%d write_errors=%d timeouts=%d non2xx=%d late_sends=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), latency.max, latency.mean,
    e.connect, e.read, e.write, e.timeout, e.status, late_sends))
end
