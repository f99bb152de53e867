/* The bit count of a 64-bit word on every compiler the extension is built with. */
#ifndef DUPFINDER_POPCOUNT_H
#define DUPFINDER_POPCOUNT_H

#include <stdint.h>

#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_AMD64))
#include <intrin.h>
static inline int df_popcount(uint64_t x) { return (int)__popcnt64(x); }
#elif defined(_MSC_VER)
static inline int df_popcount(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#else
static inline int df_popcount(uint64_t x) { return __builtin_popcountll(x); }
#endif

#endif
