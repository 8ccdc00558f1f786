// Linux calls that Swift's Glibc module does not expose (GNU extensions and headers outside its map).
// Only MobiusDaemon/System imports this module.
#ifndef MOBIUSD_CLINUX_SHIM_H
#define MOBIUSD_CLINUX_SHIM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/random.h>

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

static const uint32_t MOBIUSD_EPOLLIN = EPOLLIN;
static const uint32_t MOBIUSD_EPOLLOUT = EPOLLOUT;
static const uint32_t MOBIUSD_EPOLLERR = EPOLLERR;
static const uint32_t MOBIUSD_EPOLLHUP = EPOLLHUP;
static const uint32_t MOBIUSD_EPOLLRDHUP = EPOLLRDHUP;
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

#endif
