-- lua_failures.lua -- resty.placer.failures against round robin's rules
-- (nginx's max_fails/fail_timeout), on a clock the test moves.
-- Usage: luajit tests/lua_failures.lua LUA_DIR   (exit 0 when every check holds)
package.path = arg[1] .. "/?.lua;" .. package.path
local failures = require "resty.placer.failures"

local failed = 0
local function check(ok, what)
    if not ok then
        failed = failed + 1
        io.stderr:write("FAILED: ", what, "\n")
    end
end

local t = 100
local function now() return t end
local A, B, C = "10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80"

-- one request: the peers it takes while each of them fails when down[peer]
local function request(f, cands, down)
    local ctx, got, last_failed = { candidates = cands }, {}, false
    while true do
        local addr, role = f:next(ctx, last_failed)
        if not addr then break end
        got[#got + 1] = addr .. "/" .. role
        last_failed = down[addr] or false
        if not last_failed then break end
    end
    if ctx.peer then f:finish(ctx, down[ctx.peer] or false) end
    return table.concat(got, " ")
end

local f = assert(failures.new { max_fails = 2, fail_timeout = 10, now = now })
local down = { [A] = true }
check(request(f, { A, B, C }, down) == A .. "/owner " .. B .. "/replica", "1st failure: A tried")
t = t + 1
check(request(f, { A, B, C }, down) == A .. "/owner " .. B .. "/replica", "2nd failure: A tried")
t = t + 1
check(f:disabled(A), "A disabled after max_fails failures")
check(request(f, { A, B, C }, down) == B .. "/replica", "A skipped within fail_timeout")
t = t + 9 -- 10 s after the last failure: still within (<=)
check(request(f, { A, C }, down) == C .. "/replica", "A skipped at fail_timeout")
t = t + 1 -- past it: one request probes A
check(request(f, { A, B }, down) == A .. "/owner " .. B .. "/replica", "A probed after fail_timeout")
check(request(f, { A, B }, down) == B .. "/replica", "A skipped again after a failed probe")
t = t + 11
check(request(f, { A, B }, {}) == A .. "/owner", "A probed again, answers")
check(not f:disabled(A), "a successful probe resets A's fails")
check(request(f, { A, B }, down) == A .. "/owner " .. B .. "/replica", "A taken, fails once")
check(not f:disabled(A), "one failure of two allowed: A still taken")

-- a probe lets one request through: others skip A until it ends
local g = assert(failures.new { max_fails = 1, fail_timeout = 5, now = now })
g:failure(A)
t = t + 6
local c1, c2 = { candidates = { A, B } }, { candidates = { A, B } }
check(g:next(c1, false) == A, "first request after fail_timeout probes A")
check(g:next(c2, false) == B, "a concurrent request skips A during the probe")
g:finish(c1, false)
g:finish(c2, false)
check(not g:disabled(A), "the probe answered: A taken again")

-- every candidate disabled: they are still tried, in order
local h = assert(failures.new { max_fails = 1, fail_timeout = 5, now = now })
h:failure(A)
h:failure(B)
check(request(h, { A, B }, { [A] = true, [B] = true }) == A .. "/owner " .. B .. "/replica",
      "all disabled: tried in order rather than none")
check(request(h, { B, C, A }, { [A] = true, [B] = true }) == C .. "/replica",
      "a live replica before disabled owners")

-- max_fails = 0: no accounting
local z = assert(failures.new { max_fails = 0, now = now })
for _ = 1, 5 do z:failure(A) end
check(not z:disabled(A), "max_fails = 0 never disables")
check(request(z, { A, B }, down) == A .. "/owner " .. B .. "/replica", "max_fails = 0: owner tried")

-- hostile options are refused with a reason
check(failures.new { max_fails = -1 } == nil, "max_fails < 0 refused")
check(failures.new { max_fails = 1.5 } == nil, "max_fails not whole refused")
check(failures.new { fail_timeout = "x" } == nil, "fail_timeout not a number refused")

if failed > 0 then
    io.stderr:write(failed, " checks failed\n")
    os.exit(1)
end
print("ok")
