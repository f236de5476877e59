/* throttlelab CPU burner: a fixed amount of CPU time split over N native threads.
 *
 *   burner THREADS CPU_SECONDS
 *
 * THREADS is a positive integer or "auto" (the number of online CPUs).
 * Each thread spins until its own CPU clock (CLOCK_THREAD_CPUTIME_ID) reaches
 * CPU_SECONDS / THREADS, so the total CPU work is fixed whatever the thread
 * count and the wall time shows what a CPU limit does to it.  CPU_SECONDS <= 0
 * spins forever (the noisy neighbour).  No interpreter lock.  Prints one line:
 *   burner threads=2 cpu_seconds=1.000 nproc=2
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double target;
static volatile unsigned long sink;

static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spin(void *arg) {
    (void)arg;
    unsigned long x = 1;
    for (;;) {
        for (int i = 0; i < 200000; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
        sink = x;
        if (target > 0 && thread_cpu() >= target) break;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: burner THREADS|auto CPU_SECONDS\n");
        return 2;
    }
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    long n = strcmp(argv[1], "auto") == 0 ? nproc : strtol(argv[1], NULL, 10);
    double total = strtod(argv[2], NULL);
    if (n < 1 || n > 4096) {
        fprintf(stderr, "burner: bad thread count %s\n", argv[1]);
        return 2;
    }
    target = total > 0 ? total / n : 0;
    pthread_t *t = calloc((size_t)n, sizeof *t);
    for (long i = 0; i < n; i++) {
        if (pthread_create(&t[i], NULL, spin, NULL) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    for (long i = 0; i < n; i++) pthread_join(t[i], NULL);
    printf("burner threads=%ld cpu_seconds=%.3f nproc=%ld\n", n, total, nproc);
    return 0;
}
