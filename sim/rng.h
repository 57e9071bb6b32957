/*
 * The random streams' generator and the draws on the hot path.
 *
 * sim_rng_mt19937 is a GSL generator type (any gsl_rng function takes it)
 * whose stream is GSL's gsl_rng_mt19937's, number for number: the same
 * seeding (Knuth's multiplier 1812433253, seed 0 taken as 4357), the same
 * recurrence and tempering (Matsumoto and Nishimura, "Mersenne Twister",
 * ACM TOMACS 8(1), 1998), the same [0, 1) doubles (the 32-bit word over
 * 2^32). tests/check_sim_loop.c checks that against GSL's own for several
 * seeds over many refills. What differs is the cost: its words are 32-bit
 * (GSL keeps them in unsigned longs), and sim_rng_uniform() reads them
 * inline, where gsl_rng_uniform() calls through two function pointers.
 *
 * sim_ran_exponential() and sim_ran_lognormal() are GSL's
 * gsl_ran_exponential() and gsl_ran_lognormal() (GSL 2.7, randist/
 * exponential.c and lognormal.c: the inversion and the polar method of
 * Marsaglia), written out on sim_rng_uniform(): the same arithmetic in the
 * same order, so the same values bit for bit, with any generator.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <math.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#define SIM_MT_N 624

struct sim_mt_state {
    uint32_t mt[SIM_MT_N];
    int mti;
};

/* gsl_rng_alloc(&sim_rng_mt19937) */
extern const gsl_rng_type sim_rng_mt19937;

/* Refills the state's N words (mti past the end). */
void sim__mt_refill(struct sim_mt_state *s);

/* The next word of s, tempered. */
static inline uint32_t sim__mt_next(struct sim_mt_state *s)
{
    uint32_t k;

    if (s->mti >= SIM_MT_N)
        sim__mt_refill(s);
    k = s->mt[s->mti++];
    k ^= k >> 11;
    k ^= (k << 7) & UINT32_C(0x9d2c5680);
    k ^= (k << 15) & UINT32_C(0xefc60000);
    k ^= k >> 18;
    return k;
}

/* gsl_rng_uniform(r): [0, 1). */
static inline double sim_rng_uniform(const gsl_rng *r)
{
    if (r->type == &sim_rng_mt19937)
        return sim__mt_next(r->state) / 4294967296.0;
    return gsl_rng_uniform(r);
}

/* gsl_ran_exponential(r, mu). */
static inline double sim_ran_exponential(const gsl_rng *r, double mu)
{
    double u = sim_rng_uniform(r);

    return -mu * log1p(-u);
}

/* gsl_ran_lognormal(r, zeta, sigma). */
static inline double sim_ran_lognormal(const gsl_rng *r, double zeta,
                                       double sigma)
{
    double u, r2, normal;

    do {
        double v;
        /* a point in the square (-1, -1) to (1, 1), kept inside the
         * unit circle */
        u = -1 + 2 * sim_rng_uniform(r);
        v = -1 + 2 * sim_rng_uniform(r);
        r2 = u * u + v * v;
    } while (r2 > 1.0 || r2 == 0);
    normal = u * sqrt(-2.0 * log(r2) / r2);
    return exp(sigma * normal + zeta);
}

#endif /* SIM_RNG_H */
