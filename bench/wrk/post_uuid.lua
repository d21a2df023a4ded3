-- POST a JSON body with a FRESH random uuid4 per request, and count statuses per class.
--   wrk -s bench/wrk/post_uuid.lua http://127.0.0.1:PORT -- /path/ body-template.json [seed]
-- The template's first "{{UUID}}" is replaced per request. done() prints one JSON line
-- ("WRKJSON {...}") with requests, 2xx/3xx/4xx/5xx counts, requests sent, socket errors and latency percentiles.

local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
  table.insert(threads, thread)
end

local path, before, after
local hex = "0123456789abcdef"
local variant = "89ab"

function init(args)
  path = args[1]
  local f = assert(io.open(args[2], "r"))
  local template = f:read("*a")
  f:close()
  local s, e = string.find(template, "{{UUID}}", 1, true)
  before = string.sub(template, 1, s - 1)
  after = string.sub(template, e + 1)
  -- Seed per thread: the wall clock alone would give every thread the same sequence. Several
  -- wrk processes started in the same second (bench/multi_node.py) pass a seed of their own,
  -- else they would send the same uuids (duplicates, answered 200 and stored once).
  math.randomseed(os.time() * 1000 + tid * 7919 + (tonumber(args[3]) or 0) * 104729)
  c2, c3, c4, c5, sent = 0, 0, 0, 0, 0
end

local function uuid4()
  local t = {}
  for i = 1, 32 do
    local r
    if i == 13 then r = 5 -- version nibble 4 (index into hex is 1-based)
    elseif i == 17 then r = string.byte(variant, math.random(1, 4)) - 47
      if r > 10 then r = r - 39 end
    else r = math.random(1, 16) end
    t[i] = string.sub(hex, r, r)
  end
  local s = table.concat(t)
  return string.sub(s, 1, 8) .. "-" .. string.sub(s, 9, 12) .. "-" .. string.sub(s, 13, 16)
    .. "-" .. string.sub(s, 17, 20) .. "-" .. string.sub(s, 21, 32)
end

local headers = { ["Content-Type"] = "application/json" }

function request()
  sent = sent + 1 -- requests written; those still unanswered when wrk stops are "cut off"
  return wrk.format("POST", path, headers, before .. uuid4() .. after)
end

function response(status, hdrs, body)
  if status < 300 then c2 = c2 + 1
  elseif status < 400 then c3 = c3 + 1
  elseif status < 500 then c4 = c4 + 1
  else c5 = c5 + 1 end
end

function done(summary, latency, requests)
  local t2, t3, t4, t5, ts = 0, 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    ts = ts + thread:get("sent")
    t2 = t2 + thread:get("c2"); t3 = t3 + thread:get("c3")
    t4 = t4 + thread:get("c4"); t5 = t5 + thread:get("c5")
  end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "s2xx": %d, "s3xx": %d, "s4xx": %d, "s5xx": %d, "sent": %d, '
    .. '"connect_errors": %d, "read_errors": %d, "write_errors": %d, "timeouts": %d, '
    .. '"p50_us": %d, "p90_us": %d, "p99_us": %d, "mean_us": %.1f}\n',
    summary.requests, summary.duration, t2, t3, t4, t5, ts, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean))
end
