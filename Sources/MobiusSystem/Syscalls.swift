internal import CLinux
internal import Glibc

/// The system calls MobiusSystem makes, each wrapped once: the only file that calls them and the only place that
/// retries EINTR. A call that can fail asks the fault seam first (`SystemCallFaults`), so that a test can fail it;
/// failures come back as `Errno`, and the files around turn them into `SystemError`s naming the operation.
enum Syscall {
    /// Makes one call: asks the seam, runs `body` with the byte count to transfer (`count`, or less for an injected
    /// short transfer), and runs it again while it fails with EINTR. With `interruptible`, a pending Ctrl-C
    /// (`InterruptRequest`) ends the retries and the EINTR comes back.
    @inline(__always)
    private static func attempt<Value: FixedWidthInteger>(
        _ call: SystemCall, fd: Int32 = -1, path: String? = nil, count: Int = 0, interruptible: Bool = false,
        _ body: (Int) -> Value
    ) -> Result<Value, Errno> {
        while true {
            var count = count
            switch SystemCallFaults.fault(call, fd: fd, path: path) {
            case .fail(let errno)?:
                if errno == .interrupted && !(interruptible && InterruptRequest.isPending) { continue }
                return .failure(errno)
            case .shortTransfer(let limit)?: count = min(count, max(limit, 1))
            case nil: break
            }
            let result = body(count)
            if result != -1 { return .success(result) }
            let errno = Errno(rawValue: Glibc.errno)
            if errno == .interrupted && !(interruptible && InterruptRequest.isPending) { continue }
            return .failure(errno)
        }
    }

    /// As `attempt`, for a call that returns 0 on success.
    @inline(__always)
    private static func status(
        _ call: SystemCall, fd: Int32 = -1, path: String? = nil, _ body: () -> Int32
    ) -> Result<Void, Errno> {
        attempt(call, fd: fd, path: path) { _ in body() }.map { _ in () }
    }

    /// The C library's text for `errno`.
    static func errorText(_ errno: Errno) -> String {
        strerror(errno.rawValue).map { String(cString: $0) } ?? "errno \(errno.rawValue)"
    }
}

// MARK: - Descriptors

extension Syscall {
    static func read(
        _ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, interruptible: Bool = false
    ) -> Result<Int, Errno> {
        attempt(.read, fd: fd, count: count, interruptible: interruptible) { Glibc.read(fd, buffer, $0) }
    }

    static func write(
        _ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, interruptible: Bool = false
    ) -> Result<Int, Errno> {
        attempt(.write, fd: fd, count: count, interruptible: interruptible) { Glibc.write(fd, buffer, $0) }
    }

    /// `send` with `MSG_NOSIGNAL`: a gone peer fails with EPIPE instead of raising SIGPIPE.
    static func send(
        _ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, interruptible: Bool = false
    ) -> Result<Int, Errno> {
        attempt(.send, fd: fd, count: count, interruptible: interruptible) {
            Glibc.send(fd, buffer, $0, Int32(MSG_NOSIGNAL))
        }
    }

    static func pread(
        _ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, at offset: Int64
    ) -> Result<Int, Errno> {
        attempt(.pread, fd: fd, count: count) { Glibc.pread(fd, buffer, $0, off_t(offset)) }
    }

    static func pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, at offset: Int64) -> Result<Int, Errno> {
        attempt(.pwrite, fd: fd, count: count) { Glibc.pwrite(fd, buffer, $0, off_t(offset)) }
    }

    /// Errors are ignored: after close the number is released either way.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    static func fdatasync(_ fd: Int32) -> Result<Void, Errno> {
        status(.fdatasync, fd: fd) { Glibc.fdatasync(fd) }
    }

    static func fsync(_ fd: Int32) -> Result<Void, Errno> {
        status(.fsync, fd: fd) { Glibc.fsync(fd) }
    }

    static func ftruncate(_ fd: Int32, _ length: Int64) -> Result<Void, Errno> {
        status(.ftruncate, fd: fd) { Glibc.ftruncate(fd, off_t(length)) }
    }

    /// `flock(LOCK_EX | LOCK_NB)`.
    static func lockExclusiveWithoutWaiting(_ fd: Int32) -> Result<Void, Errno> {
        status(.flock, fd: fd) { flock(fd, LOCK_EX | LOCK_NB) }
    }

    /// `fcntl(F_GETFL)`, then `fcntl(F_SETFL)` with O_NONBLOCK set or cleared.
    static func setNonBlocking(_ fd: Int32, _ on: Bool) throws(SystemError) {
        let flags = try attempt(.fcntl, fd: fd) { _ in fcntl(fd, F_GETFL) }.get("fcntl(F_GETFL)", "fd \(fd)")
        let updated = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        try status(.fcntl, fd: fd) { fcntl(fd, F_SETFL, updated) }.get("fcntl(F_SETFL)", "fd \(fd)")
    }

    /// `fcntl(F_DUPFD_CLOEXEC)`.
    static func duplicate(_ fd: Int32) -> Result<Int32, Errno> {
        attempt(.fcntl, fd: fd) { _ in fcntl(fd, F_DUPFD_CLOEXEC, 0) }
    }

    static func dup2(_ fd: Int32, onto target: Int32) -> Result<Int32, Errno> {
        attempt(.dup2, fd: fd) { _ in Glibc.dup2(fd, target) }
    }

    static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// Turns off line editing and echo on a terminal (signals from keys stay on: Ctrl-C is still SIGINT), so that
    /// each key can be read as it is pressed; returns the settings it had, as bytes for `setTerminalSettings`.
    static func enterKeyMode(_ fd: Int32) -> Result<[UInt8], Errno> {
        var saved = termios()
        if case .failure(let errno) = status(.tcgetattr, fd: fd, { tcgetattr(fd, &saved) }) { return .failure(errno) }
        var keys = saved
        keys.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &keys.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return status(.tcsetattr, fd: fd) { tcsetattr(fd, TCSANOW, &keys) }.map {
            withUnsafeBytes(of: saved) { Array($0) }
        }
    }

    /// Gives a terminal back the settings `enterKeyMode` returned.
    static func setTerminalSettings(_ fd: Int32, _ bytes: [UInt8]) -> Result<Void, Errno> {
        var settings = termios()
        withUnsafeMutableBytes(of: &settings) { $0.copyBytes(from: bytes.prefix($0.count)) }
        return status(.tcsetattr, fd: fd) { tcsetattr(fd, TCSANOW, &settings) }
    }

    /// The terminal's size in rows and columns.
    static func windowSize(_ fd: Int32) -> Result<(rows: Int, columns: Int), Errno> {
        var rows: UInt16 = 0
        var columns: UInt16 = 0
        return status(.ioctl, fd: fd) { mobiusd_window_size(fd, &rows, &columns) }.map { (Int(rows), Int(columns)) }
    }
}

// MARK: - Files

/// What `stat` says about a file, in Swift types.
struct FileInfo {
    let kind: FileStatus.Kind
    let owner: UInt32
    let group: UInt32
    /// `st_mode & 07777`.
    let permissions: UInt32
    let size: Int64
    let device: UInt64
    let inode: UInt64
    let modifiedSeconds: Int64
    let modifiedNanoseconds: Int64

    fileprivate init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFSOCK: kind = .socket
        case S_IFREG: kind = .regularFile
        default: kind = .other
        }
        owner = info.st_uid
        group = info.st_gid
        permissions = UInt32(info.st_mode & 0o7777)
        size = Int64(info.st_size)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
    }
}

extension Syscall {
    /// Opens a file close-on-exec; see `FileDescriptor.FileAccess` for each mode's flags.
    static func open(_ path: String, _ access: FileDescriptor.FileAccess) -> Result<Int32, Errno> {
        attempt(.open, path: path) { _ in
            switch access {
            case .readOnly: Glibc.open(path, O_RDONLY | O_CLOEXEC)
            case .readWrite: Glibc.open(path, O_RDWR | O_CLOEXEC)
            case .readWriteCreating(let mode):
                Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
            case .createNew(let mode): Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
            }
        }
    }

    /// `open` with `O_WRONLY | O_APPEND | O_NOCTTY`, close-on-exec.
    static func openForAppending(_ path: String) -> Result<Int32, Errno> {
        attempt(.open, path: path) { _ in Glibc.open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC) }
    }

    /// `open` with `O_RDONLY | O_DIRECTORY`, close-on-exec.
    static func openDirectory(_ path: String) -> Result<Int32, Errno> {
        attempt(.open, path: path) { _ in Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    }

    static func fstat(_ fd: Int32) -> Result<FileInfo, Errno> {
        var info = Glibc.stat()
        return status(.fstat, fd: fd) { Glibc.fstat(fd, &info) }.map { FileInfo(info) }
    }

    /// `stat` when `followingLinks`, else `lstat`.
    static func fileInfo(_ path: String, followingLinks: Bool) -> Result<FileInfo, Errno> {
        var info = Glibc.stat()
        let result =
            followingLinks
            ? status(.stat, path: path) { stat(path, &info) }
            : status(.lstat, path: path) { lstat(path, &info) }
        return result.map { FileInfo(info) }
    }

    /// `access(X_OK)`.
    static func isExecutable(_ path: String) -> Bool {
        (try? status(.access, path: path) { access(path, X_OK) }.get()) != nil
    }

    static func unlink(_ path: String) -> Result<Void, Errno> {
        status(.unlink, path: path) { Glibc.unlink(path) }
    }

    static func mkdir(_ path: String, _ mode: UInt32) -> Result<Void, Errno> {
        status(.mkdir, path: path) { Glibc.mkdir(path, mode_t(mode)) }
    }

    static func chmod(_ path: String, _ mode: UInt32) -> Result<Void, Errno> {
        status(.chmod, path: path) { Glibc.chmod(path, mode_t(mode)) }
    }

    /// `chown` leaving the owner as it is.
    static func setGroup(_ path: String, _ gid: UInt32) -> Result<Void, Errno> {
        status(.chown, path: path) { chown(path, uid_t.max, gid) }
    }

    static func rename(_ source: String, to destination: String) -> Result<Void, Errno> {
        status(.rename, path: destination) { Glibc.rename(source, destination) }
    }

    static func readlink(_ path: String) -> Result<String, Errno> {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { raw in
            attempt(.readlink, path: path) { _ in
                Glibc.readlink(path, raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
            }
        }
        return count.flatMap { count in
            count < buffer.count ? .success(String(decoding: buffer[..<count], as: UTF8.self)) : .failure(.nameTooLong)
        }
    }

    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names in a directory without `.` and `..`, in the kernel's order (`opendir`, `readdir`, `closedir`).
    static func directoryNames(_ path: String) throws(SystemError) -> [String] {
        if case .fail(let errno)? = SystemCallFaults.fault(.opendir, fd: -1, path: path) {
            throw SystemError(errno: errno, operation: "opendir", subject: path)
        }
        guard let directory = opendir(path) else {
            throw SystemError(errno: Errno(rawValue: Glibc.errno), operation: "opendir", subject: path)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            if case .fail(let errno)? = SystemCallFaults.fault(.readdir, fd: -1, path: path) {
                throw SystemError(errno: errno, operation: "readdir", subject: path)
            }
            // readdir returns NULL both at the end and on error; only errno tells them apart.
            Glibc.errno = 0
            guard let entry = readdir(directory) else {
                if Glibc.errno != 0 {
                    throw SystemError(errno: Errno(rawValue: Glibc.errno), operation: "readdir", subject: path)
                }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }
}

// MARK: - Sockets

extension Syscall {
    /// An AF_UNIX stream socket, close-on-exec.
    static func streamSocket() -> Result<Int32, Errno> {
        attempt(.socket) { _ in socket(AF_UNIX, MOBIUSD_SOCK_STREAM_CLOEXEC, 0) }
    }

    static func bind(_ fd: Int32, _ address: UnixSocketAddress, path: String) -> Result<Void, Errno> {
        status(.bind, fd: fd, path: path) { address.withSocketAddress { Glibc.bind(fd, $0, $1) } }
    }

    static func listen(_ fd: Int32, backlog: Int32) -> Result<Void, Errno> {
        status(.listen, fd: fd) { Glibc.listen(fd, backlog) }
    }

    static func connect(
        _ fd: Int32, _ address: UnixSocketAddress, path: String, interruptible: Bool = false
    ) -> Result<Void, Errno> {
        attempt(.connect, fd: fd, path: path, interruptible: interruptible) { _ in
            address.withSocketAddress { Glibc.connect(fd, $0, $1) }
        }.map { _ in () }
    }

    /// `accept4` with `SOCK_NONBLOCK | SOCK_CLOEXEC`.
    static func accept(_ listener: Int32) -> Result<Int32, Errno> {
        attempt(.accept4, fd: listener) { _ in mobiusd_accept_nonblocking(listener) }
    }

    /// `shutdown(SHUT_RDWR)`, without the seam: it runs in a signal handler.
    static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// `getsockopt(SO_PEERCRED)`, then `getsockopt(SO_PEERGROUPS)` for the supplementary groups (none on a kernel
    /// without it, older than 4.13: group rules then see only the primary group).
    static func peerCredentials(_ fd: Int32) -> Result<PeerCredentials, Errno> {
        var credentials = mobiusd_peer_credentials()
        let identity = status(.getsockopt, fd: fd) { mobiusd_peer_credentials(fd, &credentials) }
        if case .failure(let errno) = identity { return .failure(errno) }
        var groups = [UInt32](repeating: 0, count: 32)
        while true {
            let capacity = groups.count
            let counted = attempt(.getsockopt, fd: fd) { _ in
                groups.withUnsafeMutableBufferPointer { mobiusd_peer_groups(fd, $0.baseAddress, Int32(capacity)) }
            }
            switch counted {
            case .success(let count) where Int(count) > capacity:
                groups = [UInt32](repeating: 0, count: Int(count))
            case .success(let count):
                groups.removeSubrange(Int(count)...)
                return .success(
                    PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: groups))
            case .failure(.noProtocolOption):
                return .success(
                    PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: []))
            case .failure(let errno):
                return .failure(errno)
            }
        }
    }

    /// Whether `getsockopt` reports a listening AF_UNIX stream socket (`SO_DOMAIN`, `SO_TYPE`, `SO_ACCEPTCONN`).
    static func isListeningUnixStream(_ fd: Int32) -> Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            let result = status(.getsockopt, fd: fd) { getsockopt(fd, SOL_SOCKET, name, &value, &length) }
            return (try? result.get()) != nil ? value : nil
        }
        return option(SO_DOMAIN) == AF_UNIX && option(SO_TYPE) == MOBIUSD_SOCK_STREAM && option(SO_ACCEPTCONN) == 1
    }

    /// The path `getsockname` gives for a bound AF_UNIX socket, or `nil` for none (abstract, unnamed, not AF_UNIX).
    static func localPath(_ fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let pathLength = Int(length) - MemoryLayout<sa_family_t>.size
        guard pathLength > 0 else { return nil }
        let bytes = withUnsafeBytes(of: &address.sun_path) { raw in Array(raw.prefix(pathLength)) }
        guard let first = bytes.first, first != 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// `setsockopt(SO_RCVTIMEO)`.
    static func setReceiveTimeout(_ fd: Int32, seconds: Int) -> Result<Void, Errno> {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        return status(.setsockopt, fd: fd) {
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }
}

// MARK: - Waiting: epoll, eventfd, signalfd, poll, AIO

extension Syscall {
    typealias EpollEvent = epoll_event

    static var epollReadable: UInt32 { MOBIUSD_EPOLLIN }
    static var epollWritable: UInt32 { MOBIUSD_EPOLLOUT }
    static var epollHangUp: UInt32 { MOBIUSD_EPOLLHUP }
    static var epollError: UInt32 { MOBIUSD_EPOLLERR }

    static func epollCreate() -> Result<Int32, Errno> {
        attempt(.epollCreate) { _ in epoll_create1(MOBIUSD_EPOLL_CLOEXEC) }
    }

    enum EpollOperation {
        case add, modify, remove
    }

    static func epollControl(
        _ epoll: Int32, _ operation: EpollOperation, _ fd: Int32, events: UInt32 = 0, token: UInt64 = 0
    ) -> Result<Void, Errno> {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        let code =
            switch operation {
            case .add: EPOLL_CTL_ADD
            case .modify: EPOLL_CTL_MOD
            case .remove: EPOLL_CTL_DEL
            }
        return status(.epollControl, fd: fd) { epoll_ctl(epoll, code, fd, &event) }
    }

    /// Waits up to `timeoutMilliseconds` and calls `body` with each ready registration's token and events. A signal
    /// ends the wait early with no events (the caller waits again), rather than being retried here.
    static func epollWait(
        _ epoll: Int32, _ events: inout [EpollEvent], timeoutMilliseconds: Int32, _ body: (UInt64, UInt32) -> Void
    ) -> Result<Void, Errno> {
        if case .fail(let errno)? = SystemCallFaults.fault(.epollWait, fd: epoll, path: nil) {
            return errno == .interrupted ? .success(()) : .failure(errno)
        }
        let count = events.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
        }
        if count < 0 {
            let errno = Errno(rawValue: Glibc.errno)
            return errno == .interrupted ? .success(()) : .failure(errno)
        }
        for index in 0..<Int(count) {
            body(events[index].data.u64, events[index].events)
        }
        return .success(())
    }

    /// A non-blocking, close-on-exec eventfd.
    static func eventFD() -> Result<Int32, Errno> {
        attempt(.eventfd) { _ in eventfd(0, MOBIUSD_EFD_FLAGS) }
    }

    /// Blocks `signals` for the calling thread (`pthread_sigmask`) and opens a non-blocking, close-on-exec
    /// signalfd for them.
    static func signalFD(_ signals: [Int32]) throws(SystemError) -> Int32 {
        var mask = signalSet(signals)
        _ = try blockSignals(signals)
        return try attempt(.signalfd) { _ in signalfd(-1, &mask, MOBIUSD_SFD_FLAGS) }.get("signalfd")
    }

    /// Adds `signals` to the calling thread's blocked signals and returns the mask it had before.
    static func blockSignals(_ signals: [Int32]) throws(SystemError) -> sigset_t {
        var mask = signalSet(signals)
        var previous = sigset_t()
        // pthread_sigmask returns the error number instead of setting errno.
        let blocked = pthread_sigmask(SIG_BLOCK, &mask, &previous)
        guard blocked == 0 else { throw SystemError(errno: Errno(rawValue: blocked), operation: "pthread_sigmask") }
        return previous
    }

    /// Gives the calling thread back a mask `blockSignals` returned.
    static func restoreSignalMask(_ mask: sigset_t) {
        var mask = mask
        // Fails only for an invalid `how`, which SIG_SETMASK is not.
        _ = pthread_sigmask(SIG_SETMASK, &mask, nil)
    }

    private static func signalSet(_ signals: [Int32]) -> sigset_t {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        return mask
    }

    /// Reads one pending signal from a signalfd; `nil` when none is pending.
    static func readSignal(_ fd: Int32) -> Int32? {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        guard (try? read(fd, &info, size).get()) == size else { return nil }
        return Int32(info.ssi_signo)
    }

    /// Waits up to `timeoutMilliseconds` for `fd` to be readable; `false` when the time ran out.
    static func pollReadable(_ fd: Int32, timeoutMilliseconds: Int32) -> Result<Bool, Errno> {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return attempt(.poll, fd: fd) { _ in poll(&request, 1, timeoutMilliseconds) }.map { $0 > 0 }
    }

    /// A Linux AIO context for one request (`io_setup`).
    static func aioSetup() -> Result<UInt64, Errno> {
        if case .fail(let errno)? = SystemCallFaults.fault(.aioSetup, fd: -1, path: nil) { return .failure(errno) }
        var created: UInt64 = 0
        let status = mobiusd_aio_setup(1, &created)
        return status == 0 ? .success(created) : .failure(Errno(rawValue: -status))
    }

    /// Submits an fdatasync of `fd` whose completion signals the eventfd `completion` (`io_submit`).
    static func aioSubmitDataSync(_ context: UInt64, _ fd: Int32, completion: Int32) -> Result<Void, Errno> {
        if case .fail(let errno)? = SystemCallFaults.fault(.aioSubmit, fd: fd, path: nil) { return .failure(errno) }
        let status = mobiusd_aio_submit_fdsync(context, fd, completion)
        return status == 0 ? .success(()) : .failure(Errno(rawValue: -status))
    }

    /// The result of the completed request (0, or -errno of the sync itself), or `nil` while it runs
    /// (`io_getevents` without waiting).
    static func aioReap(_ context: UInt64) -> Result<Int64?, Errno> {
        if case .fail(let errno)? = SystemCallFaults.fault(.aioGetEvents, fd: -1, path: nil) { return .failure(errno) }
        var result: Int64 = 0
        let reaped = mobiusd_aio_reap(context, &result)
        if reaped < 0 { return .failure(Errno(rawValue: -reaped)) }
        return .success(reaped == 1 ? result : nil)
    }

    static func aioDestroy(_ context: UInt64) {
        mobiusd_aio_destroy(context)
    }
}

// MARK: - Processes

extension Syscall {
    /// `kill`; a negative `pid` names a process group, signal 0 only checks.
    static func kill(_ pid: Int32, _ signal: Int32) -> Result<Void, Errno> {
        status(.kill) { Glibc.kill(pid, signal) }
    }

    /// `waitpid`, with `WNOHANG` unless `blocking`: the pid reaped (0 while the child runs) and its wait status.
    static func waitpid(_ pid: Int32, blocking: Bool) -> Result<(pid: Int32, status: Int32), Errno> {
        var status: Int32 = 0
        return attempt(.waitpid) { _ in Glibc.waitpid(pid, &status, blocking ? 0 : WNOHANG) }.map { ($0, status) }
    }

    /// Starts `arguments[0]` (looked up on PATH when it has no slash) with stdin, stdout and stderr from files
    /// (the output files created or truncated), an empty signal mask, default dispositions and no descriptor but
    /// 0-2 (`posix_spawnp`). Returns the child's pid.
    static func spawn(
        _ arguments: [String], standardInput: String, standardOutput: String, standardError: String,
        workingDirectory: String?, environment: [String: String]?
    ) -> Result<Int32, Errno> {
        if case .fail(let errno)? = SystemCallFaults.fault(.posixSpawn, fd: -1, path: arguments[0]) {
            return .failure(errno)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = O_WRONLY | O_CREAT | O_TRUNC
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, output, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, output, 0o644)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        if let workingDirectory {
            // After the opens, so relative output paths mean what they mean to the caller.
            _ = addChangeDirectory(&actions, workingDirectory)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { variables in variables.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp ?? [] { free(pointer) }
        }
        var pid: pid_t = 0
        // posix_spawnp returns the error number instead of setting errno.
        let result =
            if let envp {
                posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
            } else {
                posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
            }
        return result == 0 ? .success(pid) : .failure(Errno(rawValue: result))
    }

    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29+), which neither the Glibc module nor CLinux declares
    /// (it sits behind `_GNU_SOURCE`); looked up once.
    private static let addChangeDirectory: AddChangeDirectory = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else {
            fatalError("glibc without posix_spawn_file_actions_addchdir_np (needs 2.29+)")
        }
        return unsafeBitCast(symbol, to: AddChangeDirectory.self)
    }()

    /// A close-on-exec pipe, blocking on both ends.
    static func pipe() -> Result<(read: Int32, write: Int32), Errno> {
        var fds: [Int32] = [-1, -1]
        return status(.pipe2) { pipe2(&fds, O_CLOEXEC) }.map { (fds[0], fds[1]) }
    }

    /// Forks and execs `program` with the given descriptors as 0-2 (CLinux's `mobiusd_spawn_piped`): a process
    /// group of its own, an empty signal mask, default dispositions, no other descriptor, and with `credentials`
    /// the groups, gid and uid set in that order. Returns the pid, or the failed step's error.
    static func spawnPiped(
        program: String, arguments: [String], environment: [String], standardInput: Int32, standardOutput: Int32,
        standardError: Int32, credentials: PipedProcess.Credentials?
    ) throws(SystemError) -> Int32 {
        if case .fail(let errno)? = SystemCallFaults.fault(.spawn, fd: -1, path: program) {
            throw SystemError(errno: errno, operation: "fork", subject: program)
        }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var error: Int32 = 0
        var step: Int32 = 0
        let groups = credentials?.groups ?? []
        let pid = argv.withUnsafeBufferPointer { argvBuffer in
            envp.withUnsafeBufferPointer { envpBuffer in
                groups.withUnsafeBufferPointer { groupBuffer in
                    var request = mobiusd_spawn_request(
                        path: nil, argv: argvBuffer.baseAddress, envp: envpBuffer.baseAddress,
                        stdin_fd: standardInput, stdout_fd: standardOutput, stderr_fd: standardError,
                        set_ids: credentials == nil ? 0 : 1, uid: credentials?.uid ?? 0, gid: credentials?.gid ?? 0,
                        groups: groupBuffer.baseAddress, group_count: Int32(groupBuffer.count))
                    return program.withCString { path in
                        request.path = path
                        return mobiusd_spawn_piped(&request, &error, &step)
                    }
                }
            }
        }
        guard pid > 0 else {
            let operation =
                switch Int(step) {
                case Int(MOBIUSD_SPAWN_STEP_DUP): "dup2"
                case Int(MOBIUSD_SPAWN_STEP_GROUPS): "setgroups"
                case Int(MOBIUSD_SPAWN_STEP_GID): "setgid"
                case Int(MOBIUSD_SPAWN_STEP_UID): "setuid"
                case Int(MOBIUSD_SPAWN_STEP_EXEC): "execve"
                default: "fork"
                }
            throw SystemError(errno: Errno(rawValue: error), operation: operation, subject: program)
        }
        return pid
    }

    /// A pidfd for `pid`, close-on-exec.
    static func pidFD(_ pid: Int32) -> Result<Int32, Errno> {
        attempt(.pidfdOpen) { _ in mobiusd_pidfd_open(pid) }.map { fd in
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            return fd
        }
    }

    /// Sets the calling thread's nice value (Linux keeps one per thread; `who` 0 is the calling thread).
    static func setThreadNice(_ nice: Int32) -> Result<Void, Errno> {
        status(.setpriority) { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) }
    }

    /// Names the calling thread (at most 15 bytes show) for `top`, `ps` and debuggers.
    static func setThreadName(_ name: String) {
        name.withCString { mobiusd_set_thread_name($0) }
    }

    static var userID: UInt32 { getuid() }
    static var effectiveGroupID: UInt32 { getegid() }
    static var processID: Int32 { getpid() }
    static var pageSize: Int { Int(sysconf(Int32(_SC_PAGESIZE))) }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Every `NAME=value` entry of `environ`.
    static func environmentEntries() -> [String] {
        var entries: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            entries.append(String(cString: pointer))
            entry += 1
        }
        return entries
    }

    /// The signals the process ignores.
    enum IgnoredSignal {
        case brokenPipe, fileSizeLimit
    }

    /// Ignores `ignored` (SIGPIPE, SIGXFSZ) process-wide.
    static func ignore(_ ignored: IgnoredSignal) {
        signal(ignored == .brokenPipe ? SIGPIPE : SIGXFSZ, SIG_IGN)
    }

    /// Catches SIGINT with `handler`, without `SA_RESTART`.
    static func catchInterrupt(_ handler: @convention(c) (Int32) -> Void) -> Result<Void, Errno> {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        return sigaction(SIGINT, &action, nil) == 0 ? .success(()) : .failure(Errno(rawValue: Glibc.errno))
    }

    static func exit(_ code: Int32) -> Never {
        Glibc.exit(code)
    }

    /// Ends the process by SIGINT, as if it had never been caught: the default disposition back, then the signal.
    static func dieOfInterrupt() -> Never {
        _ = signal(SIGINT, SIG_DFL)
        _ = raise(SIGINT)
        Glibc.exit(128 + SIGINT)
    }

    /// Fills `count` bytes from `getrandom`, retrying until it has them all.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                getrandom(buffer.baseAddress! + filled, count - filled, 0)
            }
            if result > 0 { filled += result }
        }
        return bytes
    }

    /// CLOCK_MONOTONIC (`realtime`: CLOCK_REALTIME) as seconds and nanoseconds.
    @inline(__always)
    static func clock(realtime: Bool = false) -> (seconds: Int, nanoseconds: Int) {
        var spec = timespec()
        clock_gettime(realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, &spec)
        return (spec.tv_sec, spec.tv_nsec)
    }

    /// The soft and hard RLIMIT_NOFILE.
    static func openFilesLimit() -> Result<(soft: UInt64, hard: UInt64), Errno> {
        var limit = rlimit()
        return status(.getrlimit) { getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) }.map {
            (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
        }
    }

    static func setOpenFilesLimit(soft: UInt64, hard: UInt64) -> Result<Void, Errno> {
        var limit = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
        return status(.setrlimit) { setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) }
    }
}
