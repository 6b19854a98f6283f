// test_header_cpp.cc -- placer.h compiles as C++ (extern "C", no restrict or
// _Atomic) and links against the shared library.
#include "placer.h"
#include "placer_control.h"

#include <cstdio>
#include <cstring>

int main()
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = nullptr;
    int failed = 0;
    failed += placer_builder_add_node(b, "only", "z", 1.0) != 0;
    failed += placer_builder_build(b, 5, &s) != 0;
    failed += placer_lookup(s, "k", 1) != 0;
    failed += std::strcmp(placer_strerror(PLACER_EIDDUP), "unknown error") == 0;
    placer_snapshot_free(s);
    placer_builder_free(b);
    std::printf("test_header_cpp: %d passed, %d failed\n", 4 - failed, failed);
    return failed != 0;
}
