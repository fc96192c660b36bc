/*
 * Baton testkit: a store clock for a private Redis or PostgreSQL, loaded with LD_PRELOAD. It shifts what the process
 * reads from its wall clock (clock_gettime with CLOCK_REALTIME or CLOCK_REALTIME_COARSE, gettimeofday, time) by a
 * value the test controls through a small file, BATON_STORE_CLOCK_FILE, mapped shared: stepping the clock is a write
 * to that file, seen by every process (and forked child) at its next clock read. Monotonic clocks are left alone.
 *
 * The file holds four native-endian 64-bit integers, written by StoreClock.java under a sequence lock:
 *   [0] sequence: odd while the writer changes the other fields
 *   [1] offset in nanoseconds
 *   [2] skew in parts per billion (the clock's rate minus one)
 *   [3] anchor: the real CLOCK_REALTIME in nanoseconds from which the skew accumulates
 * so the shifted time is real + offset + (real - anchor) * skew / 1e9.
 *
 * The real clock is read with the clock_gettime system call, never through dlsym: looking the libc function up can
 * allocate, and an allocator that reads the clock while it initialises (jemalloc, linked into Redis) would recurse.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define FIELDS 4
#define MAX_RETRIES 10000

static const volatile int64_t *fields;

__attribute__((constructor)) static void map_clock_file(void) {
    const char *path = getenv("BATON_STORE_CLOCK_FILE");
    if (path == NULL) {
        return;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    void *page = mmap(NULL, FIELDS * sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (page != MAP_FAILED) {
        fields = page;
    }
}

static int64_t shift(int64_t real) {
    const volatile int64_t *f = fields;
    if (f == NULL) {
        return 0;
    }
    int64_t offset = 0, skew = 0, anchor = 0;
    for (int i = 0; i < MAX_RETRIES; i++) {
        int64_t before = __atomic_load_n(&f[0], __ATOMIC_ACQUIRE);
        offset = f[1];
        skew = f[2];
        anchor = f[3];
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if ((before & 1) == 0 && __atomic_load_n(&f[0], __ATOMIC_RELAXED) == before) {
            break;
        }
    }
    return skew == 0 ? offset : offset + (int64_t) ((double) (real - anchor) * (double) skew / 1e9);
}

static int real_clock(clockid_t id, struct timespec *ts) {
    return (int) syscall(SYS_clock_gettime, id, ts);
}

static void shifted(struct timespec *ts) {
    int64_t real = (int64_t) ts->tv_sec * 1000000000 + ts->tv_nsec;
    int64_t now = real + shift(real);
    int64_t sec = now / 1000000000;
    int64_t nsec = now % 1000000000;
    if (nsec < 0) {
        sec--;
        nsec += 1000000000;
    }
    ts->tv_sec = (time_t) sec;
    ts->tv_nsec = (long) nsec;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int result = real_clock(id, ts);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        shifted(ts);
    }
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    if (tz != NULL && syscall(SYS_gettimeofday, NULL, tz) != 0) {
        return -1;
    }
    struct timespec ts;
    if (real_clock(CLOCK_REALTIME, &ts) != 0) {
        return -1;
    }
    shifted(&ts);
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (real_clock(CLOCK_REALTIME, &ts) != 0) {
        return (time_t) -1;
    }
    shifted(&ts);
    if (out != NULL) {
        *out = ts.tv_sec;
    }
    return ts.tv_sec;
}
