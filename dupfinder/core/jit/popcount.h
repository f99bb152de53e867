/* The bit count of a 64-bit word on every compiler the extension is built with, and whether the
   CPU runs the kernels built for AVX2. */
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

/* 1 when the CPU and the operating system run the index's faster build (AVX2, FMA, BMI1/2). */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
static inline int df_cpu_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
        && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")
        && __builtin_cpu_supports("popcnt");
}
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_AMD64))
static inline int df_cpu_avx2(void)
{
    int info[4];
    __cpuid(info, 0);
    if (info[0] < 7)
        return 0;
    __cpuid(info, 1);
    /* FMA, POPCNT, OSXSAVE and AVX */
    if ((info[2] & 0x18801000) != 0x18801000)
        return 0;
    if ((_xgetbv(0) & 6) != 6)  /* the OS saves the vector registers */
        return 0;
    __cpuidex(info, 7, 0);
    return (info[1] & 0x128) == 0x128;  /* AVX2, BMI1 and BMI2 */
}
#else
static inline int df_cpu_avx2(void) { return 0; }
#endif

#endif
