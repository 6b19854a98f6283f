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
    {0, "", 0, UINT64_C(0x9ca066f1a4ab2eea)},
    {0, "T", 1, UINT64_C(0x7767b534eb04d286)},
    {0, "Th", 2, UINT64_C(0x07a77ba059d6ba2b)},
    {0, "The", 3, UINT64_C(0x4d8e5bc5c93c187d)},
    {0, "The ", 4, UINT64_C(0x8f3f5b51ca5ada28)},
    {0, "The q", 5, UINT64_C(0x3174b8d55b5ae719)},
    {0, "The qui", 7, UINT64_C(0xe1f50d8830d9ebd4)},
    {0, "The quic", 8, UINT64_C(0xe3bebd3db07c28cb)},
    {0, "The quick", 9, UINT64_C(0x1040f72e2b257725)},
    {0, "The quick brown", 15, UINT64_C(0xb87ce06ff7e7224d)},
    {0, "The quick brown ", 16, UINT64_C(0xd3150806a76d2d79)},
    {0, "The quick brown f", 17, UINT64_C(0xbab402be69ea345f)},
    {0, "The quick brown fox jump", 24, UINT64_C(0x6bac9e7e00310ed4)},
    {0, "The quick brown fox jumps over ", 31, UINT64_C(0x942708208a58187f)},
    {0, "The quick brown fox jumps over t", 32, UINT64_C(0x0e2f5a549757c37a)},
    {0, "The quick brown fox jumps over th", 33, UINT64_C(0x49b3ed0e50d88069)},
    {0, "The quick brown fox jumps over the lazy dog. The", 48, UINT64_C(0x34cfabe7f66cc415)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fo", 63, UINT64_C(0xd67064f2a67db77f)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox", 64, UINT64_C(0x553c77bca430180c)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox ", 65, UINT64_C(0x2ed8b43167a9d06c)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ", 100, UINT64_C(0xcb377e82b3bb9fe8)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the la", 127, UINT64_C(0x05bd181b1bf2832a)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the laz", 128, UINT64_C(0x4b9051e51cb50073)},
    {0, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over", 255, UINT64_C(0x66be603d86ba48cb)},
    {1, "", 0, UINT64_C(0xf75ef4998ecbe774)},
    {1, "T", 1, UINT64_C(0xd637c1d589f8f9cc)},
    {1, "Th", 2, UINT64_C(0x6b5b1a2b0e4e956e)},
    {1, "The", 3, UINT64_C(0xc6fab1342074035f)},
    {1, "The ", 4, UINT64_C(0x018df7581c22587e)},
    {1, "The q", 5, UINT64_C(0x9c249b6ae9ee81da)},
    {1, "The qui", 7, UINT64_C(0xf4d92043e75fcab9)},
    {1, "The quic", 8, UINT64_C(0xcbf87884550710ec)},
    {1, "The quick", 9, UINT64_C(0x76cbbc64a7cef469)},
    {1, "The quick brown", 15, UINT64_C(0xc86265bd5e14fa9a)},
    {1, "The quick brown ", 16, UINT64_C(0xc38f5923a9862fb1)},
    {1, "The quick brown f", 17, UINT64_C(0x1ea8e1ee4decf7f1)},
    {1, "The quick brown fox jump", 24, UINT64_C(0x8fe32ac950b1f4d4)},
    {1, "The quick brown fox jumps over ", 31, UINT64_C(0x0d79dd3dbc9a7e37)},
    {1, "The quick brown fox jumps over t", 32, UINT64_C(0x58b448e906524fed)},
    {1, "The quick brown fox jumps over th", 33, UINT64_C(0x4374eb3e9f1320ee)},
    {1, "The quick brown fox jumps over the lazy dog. The", 48, UINT64_C(0x9c5314d1ad7d41f5)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fo", 63, UINT64_C(0x51edb6969122bf6d)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox", 64, UINT64_C(0xb6573dfcddb46757)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox ", 65, UINT64_C(0x75e3413e9a2bacd4)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ", 100, UINT64_C(0x135f24d12daa0737)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the la", 127, UINT64_C(0x6df88a9f15dcb2f6)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the laz", 128, UINT64_C(0xd7bcf54c54a94afb)},
    {1, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over", 255, UINT64_C(0xbfc5df0261310e3d)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "", 0, UINT64_C(0x60c5fd497e5d5906)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "T", 1, UINT64_C(0xc761ee29405d38ae)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "Th", 2, UINT64_C(0x3b33cd0d66452b3d)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The", 3, UINT64_C(0x6e56e812ba5336e1)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The ", 4, UINT64_C(0x1855b8f8e157d3e5)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The q", 5, UINT64_C(0x4b8646b53812dff9)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The qui", 7, UINT64_C(0xca385b0806dc6550)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quic", 8, UINT64_C(0x4d0a02be94ccef2a)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick", 9, UINT64_C(0x805dab4fde4593fc)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown", 15, UINT64_C(0x41e0b2cad945808a)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown ", 16, UINT64_C(0x364d0a4625e7df3b)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown f", 17, UINT64_C(0xdee0a0b684813d58)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jump", 24, UINT64_C(0x7690eb9a1e3ecc87)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over ", 31, UINT64_C(0xfa413fe22f6edb46)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over t", 32, UINT64_C(0x3643529cfcdba278)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over th", 33, UINT64_C(0x09ddad4070052d94)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The", 48, UINT64_C(0x87a50679265352d2)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fo", 63, UINT64_C(0x102be716a5a97ab7)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox", 64, UINT64_C(0xbec07fb8144d3613)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox ", 65, UINT64_C(0xcde53f8f8d4af36e)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ", 100, UINT64_C(0x4b218259864ed295)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the la", 127, UINT64_C(0x2d6cb78895e9e939)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the laz", 128, UINT64_C(0x95e15d0bbb94b852)},
    {UINT64_C(0xDEADBEEFCAFEBABE), "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over", 255, UINT64_C(0x5ba96e0fab0ce349)},
    {UINT64_MAX, "", 0, UINT64_C(0x9ca066f1a4ab2eea)},
    {UINT64_MAX, "T", 1, UINT64_C(0x6b402a7663ce30d8)},
    {UINT64_MAX, "Th", 2, UINT64_C(0x252668528c108d60)},
    {UINT64_MAX, "The", 3, UINT64_C(0x4142e30211d389c4)},
    {UINT64_MAX, "The ", 4, UINT64_C(0x5cfd4f271e5a6d32)},
    {UINT64_MAX, "The q", 5, UINT64_C(0xa4b51358d90d860a)},
    {UINT64_MAX, "The qui", 7, UINT64_C(0x2dd9ff4e5063287c)},
    {UINT64_MAX, "The quic", 8, UINT64_C(0x933088ac2f912e7a)},
    {UINT64_MAX, "The quick", 9, UINT64_C(0xb654bc3822d6364d)},
    {UINT64_MAX, "The quick brown", 15, UINT64_C(0x6c7df90f7daea892)},
    {UINT64_MAX, "The quick brown ", 16, UINT64_C(0x67b98568007fc3f2)},
    {UINT64_MAX, "The quick brown f", 17, UINT64_C(0xc378a0796a4cc3d7)},
    {UINT64_MAX, "The quick brown fox jump", 24, UINT64_C(0xf806c943ddb99bae)},
    {UINT64_MAX, "The quick brown fox jumps over ", 31, UINT64_C(0xe569252f438f5556)},
    {UINT64_MAX, "The quick brown fox jumps over t", 32, UINT64_C(0x15bd48be93d050d8)},
    {UINT64_MAX, "The quick brown fox jumps over th", 33, UINT64_C(0xd36620f3bdf54747)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The", 48, UINT64_C(0x0eb37e1a489f7abd)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fo", 63, UINT64_C(0x1c045a9a9c8ff572)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox", 64, UINT64_C(0x3b80bc5d33bd44c8)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox ", 65, UINT64_C(0x19d8123050125658)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ", 100, UINT64_C(0x3a8a4a2c85417f22)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the la", 127, UINT64_C(0xa76c829641aa8206)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the laz", 128, UINT64_C(0xecc7f0445b7f61d3)},
    {UINT64_MAX, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over", 255, UINT64_C(0xe4bdc10d6743e74b)},
};

#endif
