// Where should a server's fdatasync run? One client process sends a byte and waits for the answer; the server's
// epoll thread appends 44 bytes to a file and answers once they are synced. Four ways to sync, in alternating rounds:
//   inline  the epoll thread calls fdatasync itself (redis-server's appendfsync always)
//   kernel  the epoll thread submits the fdatasync with Linux AIO (IOCB_CMD_FDSYNC) and waits in epoll for its eventfd
//   cond    a sync thread, woken by a condition variable, answers through an eventfd (mobiusd's journal thread)
//   socket  a sync thread, woken through a socketpair, answers through another
// Prints each way's ack p50 per round and the median of the rounds' p50s. Usage: handoff DIR [ROUNDS] [COUNT].
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum way { INLINE, KERNEL, COND, SOCKET, WAYS };
static const char *names[WAYS] = { "inline", "kernel", "cond", "socket" };

static int file, done_event, wake_pair[2], done_pair[2], jobs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static const char record[44] = "{\"type\":\"increment\"} padded to forty-four..";

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void append_and_sync(void) {
    if (write(file, record, sizeof record) != sizeof record || fdatasync(file) != 0) { perror("append"); exit(1); }
}

static void *sync_thread(void *argument) {
    enum way way = (enum way)(intptr_t)argument;
    for (;;) {
        char byte;
        if (way == COND) {
            pthread_mutex_lock(&lock);
            while (!jobs) pthread_cond_wait(&wake, &lock);
            jobs = 0;
            pthread_mutex_unlock(&lock);
        } else if (read(wake_pair[1], &byte, 1) != 1) {
            return NULL;
        }
        append_and_sync();
        if (way == COND) {
            uint64_t one = 1;
            if (write(done_event, &one, 8) != 8) exit(1);
        } else if (write(done_pair[1], "d", 1) != 1) {
            exit(1);
        }
    }
}

// Serves `count` requests on `client` the given way; returns after the client hangs up.
static void serve(int client, enum way way, aio_context_t context, int aio_event) {
    int poller = epoll_create1(0);
    int done = way == KERNEL ? aio_event : way == COND ? done_event : done_pair[0];
    struct epoll_event watch = { .events = EPOLLIN, .data.fd = client };
    epoll_ctl(poller, EPOLL_CTL_ADD, client, &watch);
    if (way != INLINE) {
        watch.data.fd = done;
        epoll_ctl(poller, EPOLL_CTL_ADD, done, &watch);
    }
    for (;;) {
        struct epoll_event ready;
        if (epoll_wait(poller, &ready, 1, -1) != 1) continue;
        char buffer[8];
        if (ready.data.fd == client) {
            if (read(client, buffer, 1) != 1) break;
            if (way == INLINE) {
                append_and_sync();
                if (write(client, "a", 1) != 1) exit(1);
            } else if (way == KERNEL) {
                if (write(file, record, sizeof record) != sizeof record) exit(1);
                struct iocb request = { .aio_fildes = (uint32_t)file, .aio_lio_opcode = IOCB_CMD_FDSYNC,
                                        .aio_flags = IOCB_FLAG_RESFD, .aio_resfd = (uint32_t)aio_event };
                struct iocb *requests[1] = { &request };
                if (syscall(SYS_io_submit, context, 1, requests) != 1) { perror("io_submit"); exit(1); }
            } else if (way == COND) {
                pthread_mutex_lock(&lock);
                jobs = 1;
                pthread_mutex_unlock(&lock);
                pthread_cond_signal(&wake);
            } else if (write(wake_pair[0], "j", 1) != 1) {
                exit(1);
            }
        } else {
            if (read(done, buffer, way == SOCKET ? 1 : 8) <= 0) exit(1);
            if (way == KERNEL) {
                struct io_event event;
                struct timespec none = { 0, 0 };
                if (syscall(SYS_io_getevents, context, 1, 1, &event, &none) != 1 || event.res < 0) exit(1);
            }
            if (write(client, "a", 1) != 1) exit(1);
        }
    }
    close(poller);
}

static double round_p50(enum way way, int count, aio_context_t context, int aio_event) {
    int pair[2], result[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0 || pipe(result) != 0) exit(1);
    pid_t child = fork();
    if (child == 0) {
        close(pair[1]);
        double *latency = malloc(sizeof(double) * count);
        for (int i = 0; i < count; i++) {
            char answer;
            double start = now_us();
            if (write(pair[0], "e", 1) != 1 || read(pair[0], &answer, 1) != 1) exit(1);
            latency[i] = now_us() - start;
        }
        qsort(latency, count, sizeof(double), by_value);
        if (write(result[1], &latency[count / 2], sizeof(double)) != sizeof(double)) exit(1);
        _exit(0);
    }
    close(pair[0]);
    close(result[1]);
    serve(pair[1], way, context, aio_event);
    double p50 = -1;
    if (read(result[0], &p50, sizeof p50) != sizeof p50) p50 = -1;
    waitpid(child, NULL, 0);
    close(pair[1]);
    close(result[0]);
    return p50;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: handoff DIR [ROUNDS] [COUNT]\n"); return 2; }
    int rounds = argc > 2 ? atoi(argv[2]) : 7, count = argc > 3 ? atoi(argv[3]) : 3000;
    char path[4096];
    snprintf(path, sizeof path, "%s/handoff.journal", argv[1]);
    file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (file < 0) { perror(path); return 1; }
    aio_context_t context = 0;
    int kernel = syscall(SYS_io_setup, 1, &context) == 0;
    int aio_event = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    done_event = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    socketpair(AF_UNIX, SOCK_STREAM, 0, wake_pair);
    socketpair(AF_UNIX, SOCK_STREAM, 0, done_pair);
    pthread_t cond_thread, socket_thread;
    pthread_create(&cond_thread, NULL, sync_thread, (void *)(intptr_t)COND);
    pthread_create(&socket_thread, NULL, sync_thread, (void *)(intptr_t)SOCKET);
    double p50[WAYS][64];
    if (rounds > 64) rounds = 64;
    for (int r = 0; r < rounds; r++) {
        printf("round %d:", r + 1);
        for (int way = 0; way < WAYS; way++) {
            if (way == KERNEL && !kernel) { p50[way][r] = -1; continue; }
            p50[way][r] = round_p50((enum way)way, count, context, aio_event);
            printf(" %s %.1f", names[way], p50[way][r]);
        }
        printf(" (ack p50, µs)\n");
        fflush(stdout);
    }
    for (int way = 0; way < WAYS; way++) {
        if (way == KERNEL && !kernel) { printf("%-7s unavailable (io_setup failed)\n", names[way]); continue; }
        qsort(p50[way], rounds, sizeof(double), by_value);
        printf("%-7s median ack p50 %.1f µs over %d rounds of %d\n", names[way], p50[way][rounds / 2], rounds, count);
    }
    unlink(path);
    return 0;
}
