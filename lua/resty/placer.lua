-- resty.placer -- placer snapshots and routers in LuaJIT (OpenResty), through
-- the FFI over libplacer alone: no C glue.
--
--   local placer = require "resty.placer"
--   placer.init("/usr/local/lib/x86_64-linux-gnu/libplacer.so.1")  -- or "placer"
--   local snap = assert(placer.load_file("/etc/placer/cache.snap"))
--   snap:lookup("user:42")           --> node index (0-based, as in C)
--   snap:address(node), snap:id(node)
--   snap:replicas("user:42", 3)      --> {node, ...}, the owner first
--   snap:lookup_batch(keys)          --> {node, ...} (false for no node)
--   local r = placer.router(snap)    -- the router owns snap from here on
--   r:route("user:42", 3)            --> {address, ...}, epoch
--   r:follow(path, check)            -- reread path when it changed
--
-- resty.placer.failures (lua/resty/placer/failures.lua) keeps nginx's
-- max_fails/fail_timeout for the peers a balancer takes from route().
--
-- Snapshots and routers are freed by the garbage collector. A router is
-- for the worker (the Lua VM) that made it: make it in init_worker, never
-- in init (the master), so no RCU state crosses a fork. Errors are
-- returned as nil, "PLACER_E...: reason", never raised.
local ffi = require "ffi"

local _M = { _VERSION = "0.1.0" }

ffi.cdef [[
typedef struct placer_snapshot placer_snapshot;
typedef struct placer_router placer_router;
const char *placer_strerror(int err);
int placer_snapshot_decode_ex(const void *buf, size_t len, placer_snapshot **out,
                              char *why, size_t why_len);
void placer_snapshot_free(placer_snapshot *s);
uint64_t placer_snapshot_epoch(const placer_snapshot *s);
uint32_t placer_node_count(const placer_snapshot *s);
const char *placer_node_id(const placer_snapshot *s, uint32_t node);
const char *placer_node_address(const placer_snapshot *s, uint32_t node);
int placer_lookup(const placer_snapshot *s, const void *key, size_t len);
int placer_replicas(const placer_snapshot *s, const void *key, size_t len,
                    uint32_t *out, uint32_t want);
int placer_lookup_batch(const placer_snapshot *s, const void *const *keys,
                        const size_t *lens, size_t n, uint32_t *owners);
placer_router *placer_router_new(placer_snapshot *initial);
void placer_router_free(placer_router *r);
int placer_router_publish(placer_router *r, placer_snapshot *next);
uint64_t placer_router_epoch(placer_router *r);
const placer_snapshot *placer_router_acquire(placer_router *r);
void placer_router_release(placer_router *r, const placer_snapshot *s);
void *dlopen(const char *file, int mode);
]]

local MAX_REPLICAS = 8
local NO_NODE = 0xFFFFFFFF
local RTLD_NOW, RTLD_NODELETE = 0x2, 0x1000 -- glibc's values

local lib
local nodes_buf = ffi.new("uint32_t[?]", MAX_REPLICAS)
local why_buf = ffi.new("char[256]")
local snap_out = ffi.new("placer_snapshot *[1]")

-- Load libplacer: a path, a name for the dynamic linker ("placer"), or by
-- default $PLACER_LIBRARY, else "placer". A library given by path is also
-- marked RTLD_NODELETE: closing a Lua VM unloads what ffi.load loaded, but
-- a router's liburcu call_rcu thread, once started, runs the library's
-- code until the process exits. Returns true, or nil and the loader's
-- error.
function _M.init(path)
    path = path or os.getenv("PLACER_LIBRARY") or "placer"
    local ok, l = pcall(ffi.load, path)
    if not ok then
        return nil, l
    end
    if path:find("/", 1, true) then
        ffi.C.dlopen(path, RTLD_NOW + RTLD_NODELETE)
    end
    lib = l
    return true
end

local function L()
    if not lib then
        assert(_M.init())
    end
    return lib
end

local function err_of(rc, why)
    local s = ffi.string(L().placer_strerror(rc))
    if why and why ~= "" then
        s = s .. " (" .. why .. ")"
    end
    return s
end

-- Snapshots ---------------------------------------------------------------

local Snapshot = {}
Snapshot.__index = Snapshot

local function wrap(s)
    s = ffi.gc(s, L().placer_snapshot_free)
    local n = tonumber(lib.placer_node_count(s))
    local ids, addrs = {}, {}
    for i = 0, n - 1 do
        ids[i] = ffi.string(lib.placer_node_id(s, i))
        local a = lib.placer_node_address(s, i)
        addrs[i] = a ~= nil and ffi.string(a) or false
    end
    return setmetatable({ s = s, n = n, ids = ids, addrs = addrs,
                          epoch_ = tonumber(lib.placer_snapshot_epoch(s)) }, Snapshot)
end

-- Decode a snapshot's bytes (a Lua string). Returns a snapshot, or nil and
-- the decoder's reason ("PLACER_ETRUNC: ... (...)").
function _M.decode(bytes)
    local rc = L().placer_snapshot_decode_ex(bytes, #bytes, snap_out, why_buf, 256)
    if rc ~= 0 then
        return nil, err_of(rc, ffi.string(why_buf))
    end
    return wrap(snap_out[0])
end

-- Read and decode a file. Returns a snapshot, or nil and why.
function _M.load_file(path)
    local f, err = io.open(path, "rb")
    if not f then
        return nil, err
    end
    local bytes = f:read("*a")
    f:close()
    if not bytes then
        return nil, "read failed: " .. path
    end
    return _M.decode(bytes)
end

local function live(self)
    if not self.s then
        error("resty.placer: this snapshot was given to a router", 3)
    end
    return self.s
end

function Snapshot:epoch() return self.epoch_ end
function Snapshot:count() return self.n end
function Snapshot:id(node) return self.ids[node] end
function Snapshot:address(node) return self.addrs[node] end

-- The owner's node index, or nil and why.
function Snapshot:lookup(key)
    local rc = lib.placer_lookup(live(self), key, #key)
    if rc < 0 then
        return nil, err_of(rc)
    end
    return rc
end

-- The key's replica set, the owner first: a table of at most want (1 to 8)
-- node indices, or nil and why.
function Snapshot:replicas(key, want)
    want = want or 1
    if want < 1 or want > MAX_REPLICAS then
        return nil, "want: 1 to " .. MAX_REPLICAS
    end
    local n = lib.placer_replicas(live(self), key, #key, nodes_buf, want)
    if n < 0 then
        return nil, err_of(n)
    end
    local out = {}
    for i = 0, n - 1 do
        out[i + 1] = nodes_buf[i]
    end
    return out
end

-- Owners of a table of keys in one call: a table of node indices (false
-- where a partition map has no node for a key), or nil and why.
function Snapshot:lookup_batch(keys)
    local n = #keys
    local ptrs = ffi.new("const void *[?]", n)
    local lens = ffi.new("size_t[?]", n)
    local owners = ffi.new("uint32_t[?]", n)
    for i = 1, n do
        ptrs[i - 1] = keys[i]
        lens[i - 1] = #keys[i]
    end
    local rc = lib.placer_lookup_batch(live(self), ptrs, lens, n, owners)
    if rc ~= 0 then
        return nil, err_of(rc)
    end
    local out = {}
    for i = 1, n do
        local o = owners[i - 1]
        out[i] = o ~= NO_NODE and tonumber(o) or false
    end
    return out
end

-- Routers -------------------------------------------------------------------

local Router = {}
Router.__index = Router

-- A router serving snap; the router owns it from here on (snap's lookups
-- raise an error afterwards). Returns the router, or nil and why.
function _M.router(snap)
    local s = live(snap)
    snap.s = nil
    ffi.gc(s, nil)
    local r = lib.placer_router_new(s)
    if r == nil then
        return nil, "placer_router_new failed"
    end
    -- the addresses of the snapshot in force, by its epoch
    return setmetatable({ r = ffi.gc(r, lib.placer_router_free), epoch_ = snap.epoch_,
                          addrs = snap.addrs, ids = snap.ids, stamp = false }, Router)
end

function Router:epoch() return self.epoch_ end

-- Make snap the snapshot in force (the router owns it, also on failure).
-- Returns true, or nil and why (PLACER_ESTALE: not newer).
function Router:publish(snap)
    local s = live(snap)
    snap.s = nil
    ffi.gc(s, nil)
    local rc = lib.placer_router_publish(self.r, s)
    if rc ~= 0 then
        return nil, err_of(rc, rc == -12 and ("epoch " .. snap.epoch_ .. " is not newer than "
                                              .. self.epoch_) or nil)
    end
    -- one Lua VM is one thread: no route() runs between the publish and
    -- these lines, so a route always reads a snapshot with its addresses
    self.epoch_, self.addrs, self.ids = snap.epoch_, snap.addrs, snap.ids
    return true
end

-- The addresses of key's owner and replicas (want, 1 to 8) under the
-- snapshot in force, and its epoch; or nil and why.
function Router:route(key, want)
    local s = lib.placer_router_acquire(self.r)
    local n = lib.placer_replicas(s, key, #key, nodes_buf, want or 1)
    local epoch = self.epoch_
    lib.placer_router_release(self.r, s)
    if n < 0 then
        return nil, err_of(n)
    end
    local out, addrs = {}, self.addrs
    for i = 0, n - 1 do
        out[i + 1] = addrs[nodes_buf[i]]
    end
    return out, epoch
end

-- Follow a snapshot file: when its size or first 64 bytes (the header:
-- length, epoch, CRC-32C) differ from the last file seen, read, decode,
-- pass it to
-- check(snap) (when given: return nil and why to refuse it, e.g. a node
-- that is not an allowed server) and publish it. Returns true when a new
-- epoch is in force, false when the file is unchanged, nil and why when
-- it was refused (it is not read again until it changes).
function Router:follow(path, check)
    local f, err = io.open(path, "rb")
    if not f then
        return nil, err
    end
    local size = f:seek("end")
    f:seek("set")
    local header = f:read(64) or ""
    local stamp = size .. ":" .. header
    if stamp == self.stamp then
        f:close()
        return false
    end
    local rest = f:read("*a")
    f:close()
    self.stamp = stamp
    local snap, why = _M.decode(header .. (rest or ""))
    if not snap then
        return nil, why
    end
    if check then
        local ok, cwhy = check(snap)
        if not ok then
            return nil, cwhy
        end
    end
    if snap.epoch_ == self.epoch_ and self.followed == nil then
        self.followed = true -- the file the router was made from
        return false
    end
    self.followed = true
    if snap.epoch_ <= self.epoch_ then
        return nil, "epoch " .. snap.epoch_ .. " is not newer than " .. self.epoch_
    end
    return self:publish(snap)
end

return _M
