/*
 * hash64_vectors.h -- known answers of placer_hash64: changing any of them
 * remaps every key in every deployed ring, so a change here is a protocol
 * change and needs a new hash algorithm id. Regenerate only on purpose:
 * build/tests/test_hash64 --print-vectors > tests/hash64_vectors.h
 */
#ifndef PLACER_TESTS_HASH64_VECTORS_H
#define PLACER_TESTS_HASH64_VECTORS_H

#include <stddef.h>
#include <stdint.h>

struct hash64_vector {
    uint64_t seed;
    const char *key;
    size_t len;
    uint64_t hash;
};

static const struct hash64_vector hash64_vectors[] = {
    {0, "", 0, UINT64_C(0xa336be2dc7061952)},
    {0, "T", 1, UINT64_C(0x8bcd168f4893b8dd)},
    {0, "Th", 2, UINT64_C(0x193d022fd7afa83e)},
    {0, "The", 3, UINT64_C(0x44d742d39721504f)},
    {0, "The ", 4, UINT64_C(0xe860f429e447a5bb)},
    {0, "The q", 5, UINT64_C(0x3bdf13f5d77c3a62)},
    {0, "The qui", 7, UINT64_C(0xdff8a653d3c0fd38)},
    {0, "The quic", 8, UINT64_C(0xdd214a9dd86c9453)},
    {0, "The quick", 9, UINT64_C(0x4b9d09acb2ed2db9)},
    {0, "The quick brown", 15, UINT64_C(0x387bc0a0015e2767)},
    {0, "The quick brown ", 16, UINT64_C(0xd9a285eb6a8d439a)},
    {0, "The quick brown f", 17, UINT64_C(0xc0de977cd4a465b7)},
    {0, "The quick brown fox jump", 24, UINT64_C(0xb00a4660c0e22ee4)},
    {0, "The quick brown fox jumps over ", 31, UINT64_C(0x385e37f7292c7aac)},
    {0, "The quick brown fox jumps over t", 32, UINT64_C(0xb0eb2f21908b1829)},
    {0, "The quick brown fox jumps over th", 33, UINT64_C(0xdc77b6aa7af44e32)},
    {0, "The quick brown fox jumps over the lazy dog. The", 48, UINT64_C(0xc343bb569392fd9e)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fo", 63, UINT64_C(0xeb844423f9f2b48d)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox", 64, UINT64_C(0xfbe5858bac872e85)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox ", 65, UINT64_C(0x7c241bcc67a5bb69)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ", 100, UINT64_C(0x83f372a1b3b96f36)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the la", 127, UINT64_C(0x2f3f1f48a84f6cd0)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the laz", 128, UINT64_C(0x49fc81415da1fe8f)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over", 255, UINT64_C(0x9a22bf7c1d766a52)},
    {1, "", 0, UINT64_C(0x6183720ac661a98c)},
    {1, "T", 1, UINT64_C(0xd945a6e4951e1782)},
    {1, "Th", 2, UINT64_C(0x234f5d7c2bd09cbc)},
    {1, "The", 3, UINT64_C(0x95cb14d634b18907)},
    {1, "The ", 4, UINT64_C(0x9c053d5275534cd1)},
    {1, "The q", 5, UINT64_C(0x73be001ab38033a3)},
    {1, "The qui", 7, UINT64_C(0xbd9d19695a6d4e87)},
    {1, "The quic", 8, UINT64_C(0xbccbf8aef6888b13)},
    {1, "The quick", 9, UINT64_C(0x92df19189f738225)},
    {1, "The quick brown", 15, UINT64_C(0x0cd1fd976142049c)},
    {1, "The quick brown ", 16, UINT64_C(0xba78dd926053bf4c)},
    {1, "The quick brown f", 17, UINT64_C(0x1a37f36cb7a74966)},
    {1, "The quick brown fox jump", 24, UINT64_C(0x51ad4006c3aa7607)},
    {1, "The quick brown fox jumps over ", 31, UINT64_C(0x46117a48d0a2667a)},
    {1, "The quick brown fox jumps over t", 32, UINT64_C(0xd306ee1adc130b6a)},
    {1, "The quick brown fox jumps over th", 33, UINT64_C(0x55d10b81c2e52d2a)},
    {1, "The quick brown fox jumps over the lazy dog. The", 48, UINT64_C(0x2ff1d5c2ec2545cb)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fo", 63, UINT64_C(0x5ffac8133b0660f7)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox", 64, UINT64_C(0xcd2e909514207e3e)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox ", 65, UINT64_C(0xe92cb02780257465)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ", 100, UINT64_C(0x99968a76480027ea)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the la", 127, UINT64_C(0x63d21c52e6c46c6a)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the laz", 128, UINT64_C(0x229db1d9e22852e0)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over", 255, UINT64_C(0x8d38a73b98424bb3)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "", 0, UINT64_C(0x4ed3da09558816df)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "T", 1, UINT64_C(0x0dd82a40efdb4979)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "Th", 2, UINT64_C(0xa4203513482bb771)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The", 3, UINT64_C(0xf5b63914017a5b76)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The ", 4, UINT64_C(0x8a56e747e724728b)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The q", 5, UINT64_C(0x8aa74b93f22a90f6)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The qui", 7, UINT64_C(0x702ae5348359402b)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quic", 8, UINT64_C(0x05ea10e9baa81c38)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick", 9, UINT64_C(0x63c41ff63041819f)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown", 15, UINT64_C(0x363286c343d4586a)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown ", 16, UINT64_C(0x0127a94d3d8b9465)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown f", 17, UINT64_C(0x046dc900554029b2)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jump", 24, UINT64_C(0xad5c9bea18bd79f0)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over ", 31, UINT64_C(0x43b9512586aece03)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over t", 32, UINT64_C(0x269b77f6c8771727)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over th", 33, UINT64_C(0xa9fcd003ab06de44)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The", 48, UINT64_C(0xf7a31f105521e170)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fo", 63, UINT64_C(0x58f4aa2bd4194c03)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox", 64, UINT64_C(0x1d37f299be03b885)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox ", 65, UINT64_C(0xa95c4d6ea5d5ca1b)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ", 100, UINT64_C(0xca5c72eba381c529)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the la", 127, UINT64_C(0x35a38f1cc808f936)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the laz", 128, UINT64_C(0x53f9fa55625bf3b7)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over", 255, UINT64_C(0xebcec9ad1b847c48)},
    {UINT64_MAX, "", 0, UINT64_C(0x0304be2dc7f5641b)},
    {UINT64_MAX, "T", 1, UINT64_C(0x4a1cdbf5a820ea61)},
    {UINT64_MAX, "Th", 2, UINT64_C(0xfc3946638447edab)},
    {UINT64_MAX, "The", 3, UINT64_C(0x1496d907586d4363)},
    {UINT64_MAX, "The ", 4, UINT64_C(0x91d62fd8dd397bfb)},
    {UINT64_MAX, "The q", 5, UINT64_C(0x058b684533946108)},
    {UINT64_MAX, "The qui", 7, UINT64_C(0xff12e0d7407615fc)},
    {UINT64_MAX, "The quic", 8, UINT64_C(0x977d32437041f1a0)},
    {UINT64_MAX, "The quick", 9, UINT64_C(0x631914c35b6773f0)},
    {UINT64_MAX, "The quick brown", 15, UINT64_C(0xd1a246d0bc91568e)},
    {UINT64_MAX, "The quick brown ", 16, UINT64_C(0x605747007af7897a)},
    {UINT64_MAX, "The quick brown f", 17, UINT64_C(0x0788b453ceed71e4)},
    {UINT64_MAX, "The quick brown fox jump", 24, UINT64_C(0x5fb7a369cb03d06e)},
    {UINT64_MAX, "The quick brown fox jumps over ", 31, UINT64_C(0xdbe04f47ccfc53cd)},
    {UINT64_MAX, "The quick brown fox jumps over t", 32, UINT64_C(0xffffdc5f86679a1c)},
    {UINT64_MAX, "The quick brown fox jumps over th", 33, UINT64_C(0x6532691beb6c464b)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The", 48, UINT64_C(0xbdc4efe335a1baf8)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fo", 63, UINT64_C(0x4a7fdc890da96069)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox", 64, UINT64_C(0xef02e87eaab51c5d)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox ", 65, UINT64_C(0x226f3cf640e86420)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ", 100, UINT64_C(0x00b61077b5b97fc5)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the la", 127, UINT64_C(0xe6e1a3e58e54ded0)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the laz", 128, UINT64_C(0xca456cc7f4ee982d)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over", 255, UINT64_C(0x60680959524548b8)},
};

#endif
