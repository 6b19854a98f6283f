// peers.cc -- the C++ standard library's lower_bound, the search every
// consistent-hash ring in C++ uses (Envoy's ring hash among them).
#include "peers.h"

#include <algorithm>

extern "C" uint32_t peer_std_lower_bound(const uint64_t *tokens, uint32_t n, uint64_t h)
{
    const uint64_t *it = std::lower_bound(tokens, tokens + n, h);
    uint32_t i = static_cast<uint32_t>(it - tokens);
    return i == n ? 0 : i;
}
