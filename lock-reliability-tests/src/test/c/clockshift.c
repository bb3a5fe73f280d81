/*
 * Shifts the wall clock (CLOCK_REALTIME, gettimeofday, time) of a process by the number of seconds written in the
 * file named by CLOCKSHIFT_FILE, read again at every call, so a test can make a running redis-server's clock jump.
 * The monotonic clock is left alone. It uses raw system calls and never allocates: libfaketime cannot avoid
 * allocating during its start-up and deadlocks with jemalloc, which Debian's redis-server is linked with.
 *
 * Build: gcc -shared -fPIC -O2 -o libclockshift.so clockshift.c
 * Use:   CLOCKSHIFT_FILE=/tmp/shift LD_PRELOAD=./libclockshift.so /usr/bin/redis-server ...
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long shift_seconds(void) {
    const char *path = getenv("CLOCKSHIFT_FILE");
    if (path == NULL) {
        return 0;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return 0;
    }
    char text[32];
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) {
        return 0;
    }
    text[length] = '\0';
    return strtol(text, NULL, 10);
}

int clock_gettime(clockid_t clock, struct timespec *now) {
    long result = syscall(SYS_clock_gettime, clock, now);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
        now->tv_sec += shift_seconds();
    }
    return (int) result;
}

int gettimeofday(struct timeval *now, void *zone) {
    (void) zone;
    struct timespec exact;
    if (syscall(SYS_clock_gettime, CLOCK_REALTIME, &exact) != 0) {
        return -1;
    }
    if (now != NULL) {
        now->tv_sec = exact.tv_sec + shift_seconds();
        now->tv_usec = exact.tv_nsec / 1000;
    }
    return 0;
}

time_t time(time_t *now) {
    struct timeval exact;
    gettimeofday(&exact, NULL);
    if (now != NULL) {
        *now = exact.tv_sec;
    }
    return exact.tv_sec;
}
