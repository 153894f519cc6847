-- wrk script: POSTs a round-robin mix of AdmissionReviews and prints one RESULT line.
--
-- Environment:
--   BENCH_REVIEWS   directory holding the review files (bench/reviews)
--   BENCH_MIX       space-separated PATH=FILE items (default: the four-request mix below)
--   BENCH_DELAY_MS  if set, each connection waits this long before each request (a paced,
--                   below-saturation rate: about connections / (delay + latency) requests/s)
local dir = os.getenv("BENCH_REVIEWS") or "bench/reviews"
local mix = os.getenv("BENCH_MIX")
  or "/validate=ingress-3hosts.json /mutate=service-lb.json /validate=serviceaccount.json /validate=ingress-denied.json"
local pace = tonumber(os.getenv("BENCH_DELAY_MS") or "")

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

if pace then
  function delay()
    return pace
  end
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d mean_us=%.1f "
      .. "connect_errors=%d read_errors=%d write_errors=%d timeouts=%d non2xx=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), latency.max, latency.mean,
    e.connect, e.read, e.write, e.timeout, e.status))
end
