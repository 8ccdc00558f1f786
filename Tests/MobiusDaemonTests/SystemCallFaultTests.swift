import Glibc
import MobiusSystem
import MobiusTestSupport
import Synchronization
import Testing

/// MobiusSystem's wrappers under the fault seam: EINTR is retried, EAGAIN and EPIPE come back typed, a short
/// write is continued, and a fault reaches only the calls it names on the thread that asked for it.
@Suite("MobiusSystem: system calls with injected faults")
struct SystemCallFaultTests {
    final class Outcome: Sendable {
        let failed = Atomic<Bool>(true)
    }

    @Test func errnoNamesMatchTheCLibrary() {
        let pairs: [(Errno, Int32)] = [
            (.notPermitted, EPERM), (.noSuchFile, ENOENT), (.noSuchProcess, ESRCH), (.interrupted, EINTR),
            (.ioError, EIO), (.badDescriptor, EBADF), (.noChildProcess, ECHILD), (.wouldBlock, EAGAIN),
            (.wouldBlock, EWOULDBLOCK), (.permissionDenied, EACCES), (.fileExists, EEXIST),
            (.invalidArgument, EINVAL), (.systemOutOfDescriptors, ENFILE), (.processOutOfDescriptors, EMFILE),
            (.fileTooLarge, EFBIG), (.noSpace, ENOSPC), (.brokenPipe, EPIPE), (.nameTooLong, ENAMETOOLONG),
            (.protocolError, EPROTO), (.addressInUse, EADDRINUSE), (.connectionAborted, ECONNABORTED),
            (.connectionReset, ECONNRESET), (.alreadyConnected, EISCONN), (.timedOut, ETIMEDOUT),
            (.connectionRefused, ECONNREFUSED),
        ]
        for (errno, value) in pairs { #expect(errno.rawValue == value, "\(errno)") }
        #expect(
            SystemError(errno: .noSpace, operation: "pwrite", subject: "fd 3").description
                == "pwrite fd 3: No space left on device (errno 28)")
    }

    @Test("an EINTR is retried: the read returns the byte, after two attempts")
    func interruptedReadIsRetried() throws {
        let pair = try SocketPair()
        defer { pair.close() }
        try pair.second.writeAll([42])
        var byte: UInt8 = 0
        let (outcome, record) = try FaultInjection.run([Fault(.read, fd: pair.first, .fail(.interrupted))]) {
            try withUnsafeMutableBytes(of: &byte) { try pair.first.read(into: $0) }
        }
        #expect(outcome == .transferred(1) && byte == 42)
        #expect(record.calls.map(\.call) == [.read, .read])
    }

    @Test("EAGAIN is wouldBlock, EPIPE a gone peer, ENOSPC an error naming the call")
    func errorsComeBackTyped() throws {
        let pair = try SocketPair()
        defer { pair.close() }
        var byte: UInt8 = 0
        let (read, _) = try FaultInjection.run([Fault(.read, .fail(.wouldBlock))]) {
            try withUnsafeMutableBytes(of: &byte) { try pair.first.read(into: $0) }
        }
        #expect(read == .wouldBlock)
        let (sent, _) = FaultInjection.run([Fault(.send, .fail(.brokenPipe))]) {
            [UInt8(1)].withUnsafeBytes { raw in Result { () throws(SystemError) in try pair.first.write(raw) } }
        }
        #expect(throws: SystemError.self) { try sent.get() }
        if case .failure(let error) = sent { #expect(error.isPeerGone && error.operation == "send") }
        let directory = try TemporaryDirectory(prefix: "faults")
        defer { directory.remove() }
        let (opened, _) = FaultInjection.run([Fault(.open, pathSuffix: "/x", .fail(.noSpace))]) {
            Result { () throws(SystemError) in try FileDescriptor.openFile(directory.file("x"), .createNew(mode: 0o600))
            }
        }
        #expect(throws: SystemError(errno: .noSpace, operation: "open", subject: directory.file("x"))) {
            try opened.get()
        }
    }

    @Test("a short pwrite is continued: writeAll writes every byte, with one more call")
    func shortWriteIsContinued() throws {
        let directory = try TemporaryDirectory(prefix: "faults")
        defer { directory.remove() }
        let fd = try FileDescriptor.openFile(directory.file("f"), .createNew(mode: 0o600))
        defer { fd.close() }
        let bytes = (0..<100).map { UInt8($0) }
        let (_, record) = try FaultInjection.run([Fault(.pwrite, .shortTransfer(30))]) {
            try fd.writeAll(bytes, at: 0)
        }
        #expect(record.calls.map(\.call) == [.pwrite, .pwrite])
        #expect(try FileSystem.read(directory.file("f")) == bytes)
    }

    @Test("a fault hits only the Nth matching call, and only on the thread that installed it")
    func faultsAreAimed() throws {
        let pair = try SocketPair()
        defer { pair.close() }
        let fault = Fault(.write, fd: pair.first, occurrence: 2, .fail(.ioError))
        let otherThread = Outcome()
        let (results, _) = try FaultInjection.run([fault]) { () -> [Bool] in
            let thread = try SystemThread.spawn(name: "fault-other", stackSize: 1 << 20, joinable: true) {
                otherThread.failed.store((try? pair.first.writeAll([1])) == nil, ordering: .relaxed)
            }
            thread.join()
            return [
                (try? pair.second.writeAll([2])) == nil, (try? pair.first.writeAll([3])) == nil,
                (try? pair.first.writeAll([4])) == nil, (try? pair.first.writeAll([5])) == nil,
                otherThread.failed.load(ordering: .relaxed),
            ]
        }
        #expect(results == [false, false, true, false, false], "another fd, the 1st, the 2nd, the 3rd, another thread")
    }
}
