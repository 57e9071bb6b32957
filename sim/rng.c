/* GSL's mt19937 stream with 32-bit words; see rng.h. */
#include "sim/rng.h"

#define M 397
#define UPPER UINT32_C(0x80000000)
#define LOWER UINT32_C(0x7fffffff)

/* The twist of y: no branch on its low bit. */
static inline uint32_t twist(uint32_t y)
{
    return (y >> 1) ^ ((uint32_t) - (int32_t)(y & 1) & UINT32_C(0x9908b0df));
}

void sim__mt_refill(struct sim_mt_state *s)
{
    uint32_t *mt = s->mt;
    int k;

    for (k = 0; k < SIM_MT_N - M; k++)
        mt[k] = mt[k + M] ^ twist((mt[k] & UPPER) | (mt[k + 1] & LOWER));
    for (; k < SIM_MT_N - 1; k++)
        mt[k] = mt[k + (M - SIM_MT_N)] ^
                twist((mt[k] & UPPER) | (mt[k + 1] & LOWER));
    mt[SIM_MT_N - 1] =
        mt[M - 1] ^ twist((mt[SIM_MT_N - 1] & UPPER) | (mt[0] & LOWER));
    s->mti = 0;
}

static unsigned long mt_get(void *vs)
{
    return sim__mt_next(vs);
}

static double mt_get_double(void *vs)
{
    return (double)mt_get(vs) / 4294967296.0;
}

static void mt_set(void *vs, unsigned long seed)
{
    struct sim_mt_state *s = vs;
    int i;

    if (seed == 0)
        seed = 4357; /* GSL's default seed, as its mt19937 does */
    s->mt[0] = (uint32_t)(seed & 0xffffffffUL);
    for (i = 1; i < SIM_MT_N; i++)
        s->mt[i] =
            UINT32_C(1812433253) * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) +
            (uint32_t)i;
    s->mti = i;
}

const gsl_rng_type sim_rng_mt19937 = {
    "sim-mt19937", 0xffffffffUL,   0, sizeof(struct sim_mt_state), &mt_set,
    &mt_get,       &mt_get_double,
};
