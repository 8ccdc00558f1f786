// Starting a plugin: fork, then only async-signal-safe calls in the child before execve. posix_spawn cannot set
// supplementary groups, gid and uid, which docs/protocol.md 2.1 asks for when the daemon runs as root.
#ifndef MOBIUSD_CLINUX_SPAWN_PIPED_H
#define MOBIUSD_CLINUX_SPAWN_PIPED_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <pthread.h>
#include <unistd.h>

// Behind _GNU_SOURCE in glibc's headers, which the Glibc module is built without.
extern int pipe2(int fds[2], int flags);

struct mobiusd_spawn_request {
    const char *path;          // absolute or relative program path (already looked up on PATH)
    char *const *argv;         // NULL-terminated
    char *const *envp;         // NULL-terminated
    int stdin_fd;              // the child's end of each pipe
    int stdout_fd;
    int stderr_fd;
    int set_ids;               // 1: setgroups, setgid, setuid before exec
    uint32_t uid;
    uint32_t gid;
    const uint32_t *groups;
    int group_count;
};

// Which step failed in the child, written with errno to the error pipe.
enum {
    MOBIUSD_SPAWN_STEP_DUP = 1,
    MOBIUSD_SPAWN_STEP_GROUPS = 2,
    MOBIUSD_SPAWN_STEP_GID = 3,
    MOBIUSD_SPAWN_STEP_UID = 4,
    MOBIUSD_SPAWN_STEP_EXEC = 5,
};

static inline void mobiusd_spawn_child_fail(int report_fd, int step) {
    int record[2] = {step, errno};
    ssize_t ignored = write(report_fd, record, sizeof(record));
    (void)ignored;
    _exit(127);
}

static inline int mobiusd_spawn_move_fd(int from, int to) {
    if (from == to) {
        int flags = fcntl(to, F_GETFD);
        return flags < 0 ? -1 : fcntl(to, F_SETFD, flags & ~FD_CLOEXEC);
    }
    return dup2(from, to) < 0 ? -1 : 0;
}

static inline void mobiusd_spawn_close_others(int keep) {
    // close_range (Linux 5.9+); without it, close one by one up to the soft limit.
    if (keep > 3 && syscall(436 /* SYS_close_range */, 3U, (unsigned)(keep - 1), 0U) != 0) {
        for (int fd = 3; fd < keep; fd++) close(fd);
    }
    if (syscall(436 /* SYS_close_range */, (unsigned)(keep + 1), ~0U, 0U) != 0) {
        long limit = sysconf(_SC_OPEN_MAX);
        if (limit < 0 || limit > 65536) limit = 65536;
        for (int fd = keep + 1; fd < limit; fd++) close(fd);
    }
}

// Forks and execs the request in a new process group. Returns the child's pid, or -1 with *error_out set (errno)
// and *step_out set (the failing step; 0 when fork itself failed).
static inline pid_t mobiusd_spawn_piped(const struct mobiusd_spawn_request *request, int *error_out, int *step_out) {
    int report[2];
    *step_out = 0;
    if (pipe2(report, O_CLOEXEC) != 0) {
        *error_out = errno;
        return -1;
    }
    // Signals are blocked across fork so no handler runs in the child before its dispositions are reset.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t pid = fork();
    if (pid == 0) {
        close(report[0]);
        setpgid(0, 0);
        struct sigaction standard;
        standard.sa_handler = SIG_DFL;
        standard.sa_flags = 0;
        sigemptyset(&standard.sa_mask);
        for (int signal_number = 1; signal_number < 65; signal_number++) {
            sigaction(signal_number, &standard, (struct sigaction *)0);
        }
        // The report pipe must not land on 0-2.
        int report_fd = report[1];
        if (report_fd <= 2) {
            report_fd = fcntl(report_fd, F_DUPFD_CLOEXEC, 3);
            if (report_fd < 0) _exit(127);
        }
        if (mobiusd_spawn_move_fd(request->stdin_fd, 0) != 0 || mobiusd_spawn_move_fd(request->stdout_fd, 1) != 0
            || mobiusd_spawn_move_fd(request->stderr_fd, 2) != 0) {
            mobiusd_spawn_child_fail(report_fd, MOBIUSD_SPAWN_STEP_DUP);
        }
        mobiusd_spawn_close_others(report_fd);
        if (request->set_ids) {
            if (setgroups((size_t)request->group_count, (const gid_t *)request->groups) != 0)
                mobiusd_spawn_child_fail(report_fd, MOBIUSD_SPAWN_STEP_GROUPS);
            if (setgid(request->gid) != 0) mobiusd_spawn_child_fail(report_fd, MOBIUSD_SPAWN_STEP_GID);
            if (setuid(request->uid) != 0) mobiusd_spawn_child_fail(report_fd, MOBIUSD_SPAWN_STEP_UID);
        }
        sigset_t empty;
        sigemptyset(&empty);
        pthread_sigmask(SIG_SETMASK, &empty, (sigset_t *)0);
        execve(request->path, request->argv, request->envp);
        mobiusd_spawn_child_fail(report_fd, MOBIUSD_SPAWN_STEP_EXEC);
    }
    int fork_error = errno;
    pthread_sigmask(SIG_SETMASK, &previous, (sigset_t *)0);
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        *error_out = fork_error;
        return -1;
    }
    // Also set here, so the group exists before anyone signals it whichever process runs first.
    setpgid(pid, pid);
    int record[2] = {0, 0};
    ssize_t count;
    do {
        count = read(report[0], record, sizeof(record));
    } while (count < 0 && errno == EINTR);
    close(report[0]);
    if (count == (ssize_t)sizeof(record)) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        *step_out = record[0];
        *error_out = record[1];
        return -1;
    }
    return pid;
}

// A descriptor that becomes readable when the process ends (Linux 5.3+).
static inline int mobiusd_pidfd_open(pid_t pid) {
    return (int)syscall(434 /* SYS_pidfd_open */, pid, 0U);
}

#endif
