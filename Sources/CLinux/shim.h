// Linux calls that Swift's Glibc module does not expose (GNU extensions and headers outside its map).
// Only MobiusSystem's Syscalls.swift imports this module (and MobiusTestSupport, which no production binary links).
#ifndef MOBIUSD_CLINUX_SHIM_H
#define MOBIUSD_CLINUX_SHIM_H

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/ioctl.h>
#include <termios.h>

extern int pthread_setname_np(pthread_t thread, const char *name);

static inline void mobiusd_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

// accept4 and struct ucred are behind _GNU_SOURCE in glibc's headers, which the Glibc module is built without.
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);

static inline int mobiusd_accept_nonblocking(int fd) {
    return accept4(fd, (struct sockaddr *)0, (socklen_t *)0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

struct mobiusd_peer_credentials {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
};

static inline int mobiusd_peer_credentials(int fd, struct mobiusd_peer_credentials *out) {
    socklen_t length = sizeof(*out);
    return getsockopt(fd, SOL_SOCKET, 17 /* SO_PEERCRED */, out, &length);
}

// SO_PEERGROUPS (Linux 4.13+): the supplementary groups the peer had when it connected, as SO_PEERCRED's uid and gid.
// Returns how many it had, which is more than `capacity` when they did not fit (nothing was copied: call again with
// room for that many), or -1 with errno.
static inline int mobiusd_peer_groups(int fd, uint32_t *groups, int capacity) {
    socklen_t length = (socklen_t)capacity * (socklen_t)sizeof(uint32_t);
    int status = getsockopt(fd, SOL_SOCKET, 59 /* SO_PEERGROUPS */, groups, &length);
    if (status != 0 && errno != ERANGE) return -1;
    return (int)(length / sizeof(uint32_t));
}

static const uint32_t MOBIUSD_EPOLLIN = EPOLLIN;
static const uint32_t MOBIUSD_EPOLLOUT = EPOLLOUT;
static const uint32_t MOBIUSD_EPOLLERR = EPOLLERR;
static const uint32_t MOBIUSD_EPOLLHUP = EPOLLHUP;
static const int MOBIUSD_EPOLL_CLOEXEC = EPOLL_CLOEXEC;
static const int MOBIUSD_EFD_FLAGS = EFD_NONBLOCK | EFD_CLOEXEC;
static const int MOBIUSD_SFD_FLAGS = SFD_NONBLOCK | SFD_CLOEXEC;
static const int MOBIUSD_SOCK_STREAM = SOCK_STREAM;
static const int MOBIUSD_SOCK_STREAM_CLOEXEC = SOCK_STREAM | SOCK_CLOEXEC;

// Appended for ChildProcess: a child should inherit no descriptor but 0-2; glibc (2.34+) declares this only
// under _GNU_SOURCE.
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// Datagram receive for the sd_notify listener in tests and benchmarks: descriptors passed with SCM_RIGHTS
// (sd_pid_notify_with_fds) are closed at once so a hostile sender cannot fill the table.
#include <sys/uio.h>
#include <unistd.h>
static inline long mobiusd_receive_datagram(int fd, void *buffer, unsigned long length, int flags) {
    struct iovec vector = { buffer, length };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * 64)]; } control;
    struct msghdr message = { 0 };
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = &control;
    message.msg_controllen = sizeof(control);
    long received = recvmsg(fd, &message, flags | MSG_CMSG_CLOEXEC);
    if (received < 0) return received;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *fds = (int *)CMSG_DATA(header);
        for (int index = 0; index < count; index++) close(fds[index]);
    }
    return received;
}
static const int MOBIUSD_SOCK_DGRAM_CLOEXEC = SOCK_DGRAM | SOCK_CLOEXEC;
static const int MOBIUSD_MSG_DONTWAIT = MSG_DONTWAIT;
static const int MOBIUSD_MSG_TRUNC = MSG_TRUNC;

// Linux AIO for the journal's background fdatasync (IOCB_CMD_FDSYNC, Linux 4.18+): the kernel syncs on its own worker
// and signals completion on an eventfd the reactor watches. glibc has no wrappers for these calls. Each returns
// 0 (or a count) on success and -errno on failure.
#include <linux/aio_abi.h>
#include <sys/syscall.h>
#include <string.h>
#include <errno.h>
#include <time.h>
static inline int mobiusd_aio_setup(unsigned events, uint64_t *context) {
    aio_context_t created = 0;
    if (syscall(SYS_io_setup, events, &created) < 0) return -errno;
    *context = (uint64_t)created;
    return 0;
}
static inline int mobiusd_aio_submit_fdsync(uint64_t context, int fd, int completion) {
    struct iocb request;
    memset(&request, 0, sizeof(request));
    request.aio_fildes = (uint32_t)fd;
    request.aio_lio_opcode = IOCB_CMD_FDSYNC;
    request.aio_flags = IOCB_FLAG_RESFD;
    request.aio_resfd = (uint32_t)completion;
    struct iocb *requests[1] = { &request };
    long submitted = syscall(SYS_io_submit, (aio_context_t)context, 1, requests);
    if (submitted < 0) return -errno;
    return submitted == 1 ? 0 : -EAGAIN;
}
// Collects one completed request without waiting: 1 with its result (0 or -errno) in `*result`, 0 if none is done.
static inline int mobiusd_aio_reap(uint64_t context, int64_t *result) {
    struct io_event event;
    struct timespec none = { 0, 0 };
    long reaped = syscall(SYS_io_getevents, (aio_context_t)context, 0, 1, &event, &none);
    if (reaped < 0) return -errno;
    if (reaped == 1) *result = event.res;
    return (int)reaped;
}
static inline void mobiusd_aio_destroy(uint64_t context) {
    syscall(SYS_io_destroy, (aio_context_t)context);
}

// ioctl is variadic, which Swift cannot call: the terminal's size in rows and columns (TIOCGWINSZ).
static inline int mobiusd_window_size(int fd, uint16_t *rows, uint16_t *columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) < 0) return -1;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

#endif
