/* How long FFTW's real transforms of the sound features' sizes take with each planner flag
 * (docs/sound-classes.md, "What it costs"): the meter plans with FFTW_ESTIMATE so that every run
 * gives the same bits; this says what a measured plan would gain.
 *   cc -O2 scripts/fftw-plans.c -lfftw3f -o /tmp/fftw-plans && /tmp/fftw-plans
 * Prints, for 768 and 384 points (a 32 ms frame at 24 kHz, and the pitch's half), microseconds
 * per transform over 200,000 of them. */
#include <fftw3.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
    const int sizes[] = {768, 384};
    const unsigned flags[] = {FFTW_ESTIMATE, FFTW_MEASURE, FFTW_PATIENT};
    const char *names[] = {"estimate", "measure", "patient"};
    const int repetitions = 200000;
    for (int s = 0; s < 2; s++) {
        const int n = sizes[s];
        for (int f = 0; f < 3; f++) {
            float *in = fftwf_alloc_real(n);
            fftwf_complex *out = fftwf_alloc_complex(n / 2 + 1);
            /* Planning with MEASURE or PATIENT overwrites the input: fill it after. */
            fftwf_plan plan = fftwf_plan_dft_r2c_1d(n, in, out, flags[f]);
            for (int i = 0; i < n; i++) in[i] = (float)((i * 7919) % 1000) / 1000.0f;
            const double start = now();
            for (int r = 0; r < repetitions; r++) fftwf_execute(plan);
            printf("%d points, %s: %.3f us\n", n, names[f], (now() - start) / repetitions * 1e6);
            fftwf_destroy_plan(plan);
            fftwf_free(in);
            fftwf_free(out);
        }
    }
    return 0;
}
