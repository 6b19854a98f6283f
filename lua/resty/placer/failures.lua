-- resty.placer.failures -- nginx's max_fails/fail_timeout for the peers a
-- balancer_by_lua sets with ngx.balancer.set_current_peer, which nginx's
-- round robin never sees. Pure Lua, one table per worker (as nginx's own
-- peers without a `zone`).
--
--   local failures = require "resty.placer.failures"
--   local fails = failures.new { max_fails = 1, fail_timeout = 10 }  -- per worker
--   -- access_by_lua: ngx.ctx.candidates = router:route(key, 3)
--   -- balancer_by_lua:
--   local addr, role = fails:next(ngx.ctx, balancer.get_last_failure() == "failed")
--   -- log_by_lua:
--   fails:finish(ngx.ctx, <did the last peer fail>)
--
-- The accounting is round robin's (ngx_http_upstream_round_robin.c): a
-- failure adds one to the address's fails and stamps it; an address with
-- fails >= max_fails is skipped until fail_timeout seconds after its last
-- failure or probe; then one request probes it (the others keep skipping
-- it for another fail_timeout), and a success after a probe resets fails
-- to 0. max_fails = 0 turns the accounting off, as in nginx.
--
-- next() takes a request's candidates (owner first, then replicas, as
-- Router:route returns them) in order, skipping the addresses this request
-- tried and the disabled ones. Where nginx would answer "no live
-- upstreams" (every candidate left is disabled), it takes the first
-- disabled one left instead: a key whose whole replica set failed is
-- still tried.
local _M = {}

local Failures = {}
Failures.__index = Failures

local function clock()
    return ngx.now()
end

-- opts.max_fails (default 1, as nginx), opts.fail_timeout (seconds,
-- default 10, as nginx), opts.now (a clock in seconds; default ngx.now).
function _M.new(opts)
    opts = opts or {}
    local max_fails = opts.max_fails or 1
    local fail_timeout = opts.fail_timeout or 10
    if type(max_fails) ~= "number" or max_fails < 0 or max_fails % 1 ~= 0 then
        return nil, "max_fails: a whole number >= 0"
    end
    if type(fail_timeout) ~= "number" or fail_timeout < 0 then
        return nil, "fail_timeout: seconds >= 0"
    end
    return setmetatable({ max_fails = max_fails, fail_timeout = fail_timeout,
                          now = opts.now or clock, peers = {} }, Failures)
end

-- Whether addr is skipped now (failed max_fails times, within
-- fail_timeout of its last failure or probe).
function Failures:disabled(addr, now)
    local p = self.peers[addr]
    return p ~= nil and self.max_fails > 0 and p.fails >= self.max_fails
        and (now or self.now()) - p.checked <= self.fail_timeout
end

-- addr was tried and failed.
function Failures:failure(addr, now)
    if self.max_fails == 0 then
        return
    end
    now = now or self.now()
    local p = self.peers[addr]
    if not p then
        p = { fails = 0, accessed = now, checked = now }
        self.peers[addr] = p
    end
    p.fails = p.fails + 1
    p.accessed, p.checked = now, now
    if p.fails == self.max_fails and ngx then
        ngx.log(ngx.WARN, "upstream server temporarily disabled: ", addr)
    end
end

-- addr answered: its fails are forgotten when it was probed (or taken
-- after fail_timeout) since its last failure.
function Failures:success(addr)
    local p = self.peers[addr]
    if p and p.accessed < p.checked then
        p.fails = 0
    end
end

-- addr is taken by a request: past fail_timeout, this take is the probe.
local function take(self, addr, now)
    local p = self.peers[addr]
    if p and now - p.checked > self.fail_timeout then
        p.checked = now
    end
end

-- The next peer of a request: ctx.candidates holds its addresses, the
-- owner first; last_failed tells that the peer of the previous call failed
-- (ngx.balancer.get_last_failure() == "failed"). Returns the address and
-- "owner" or "replica", or nil when every candidate was tried. Keeps its
-- state in ctx (tries, tried, peer).
function Failures:next(ctx, last_failed, now)
    now = now or self.now()
    if ctx.peer and last_failed then
        self:failure(ctx.peer, now)
    end
    local tried = ctx.tried
    if not tried then
        tried = {}
        ctx.tried = tried
    end
    local pick, fallback
    for _, a in ipairs(ctx.candidates) do
        if not tried[a] then
            if not self:disabled(a, now) then
                pick = a
                break
            end
            fallback = fallback or a
        end
    end
    pick = pick or fallback
    if not pick then
        ctx.peer = nil
        return nil
    end
    take(self, pick, now)
    tried[pick] = true
    ctx.peer = pick
    ctx.tries = (ctx.tries or 0) + 1
    return pick, pick == ctx.candidates[1] and "owner" or "replica"
end

-- The request is over: its last peer failed (no response header from it,
-- e.g. the last entry of $upstream_header_time is "-") or answered.
function Failures:finish(ctx, failed, now)
    local peer = ctx.peer
    if not peer then
        return
    end
    ctx.peer = nil
    if failed then
        self:failure(peer, now)
    else
        self:success(peer)
    end
end

return _M
