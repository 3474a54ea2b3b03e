-- Uploads the check-ins `scripts/upload-load.py --write FILE …` wrote, one a line, each once, and
-- prints how many were created (201) a second; the run's length is wrk's -d, so make more bodies
-- than it can send (after the last, a thread sends its first again: a retry, not counted).
--
--   TOKEN=$(curl -s -H 'Content-Type: application/json' -d '{"model":"load","platform":"linux"}' \
--       http://127.0.0.1:PORT/api/v1/devices | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
--   wrk -t2 -c16 -d6s -s scripts/upload-load.lua http://127.0.0.1:PORT -- FILE 2 "$TOKEN"
--
-- The second argument is wrk's -t: each thread sends the lines whose number it is modulo that.
local threads = {}

function setup(thread)
    thread:set("id", #threads)
    table.insert(threads, thread)
end

function init(args)
    bodies, sent, created, other = {}, 0, 0, 0
    local line = 0
    for body in io.lines(args[1]) do
        if line % tonumber(args[2]) == id then table.insert(bodies, body) end
        line = line + 1
    end
    headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. args[3] }
end

function request()
    sent = sent + 1
    return wrk.format("POST", "/api/v2/checkins", headers, bodies[sent] or bodies[1])
end

function response(status)
    if status == 201 then created = created + 1 else other = other + 1 end
end

function done(summary)
    local count, others = 0, 0
    for _, thread in ipairs(threads) do
        count, others = count + thread:get("created"), others + thread:get("other")
    end
    local seconds = summary.duration / 1e6
    io.write(string.format("%d created, %d other answers, in %.2f s: %.1f/s\n", count, others, seconds, count / seconds))
end
