internal import Glibc
import MobiusSystem

/// What a running process has cost so far: CPU time, context switches, resident memory. Read from /proc without
/// touching the process, so one process (a benchmark) can measure another (a server); take two samples and
/// subtract.
package struct ProcessUsage: Sendable, Equatable {
    /// Where `cpuNanoseconds` came from.
    package enum CPUSource: String, Sendable {
        /// The first field of /proc/PID/task/TID/schedstat (nanoseconds on a CPU, user and kernel), summed over
        /// the threads alive at the sample. A thread that exits between two samples takes its time with it.
        case schedstat
        /// utime + stime of /proc/PID/stat, every thread including exited ones, in clock ticks (10 ms with
        /// USER_HZ 100). Used when the kernel has no schedstat files (CONFIG_SCHED_INFO off).
        case stat
    }

    /// CPU time in user and kernel mode, all threads, in nanoseconds.
    package let cpuNanoseconds: UInt64
    /// How `cpuNanoseconds` was measured (and so how fine it is).
    package let cpuSource: CPUSource
    /// Times a thread gave up the CPU to wait (`voluntary_ctxt_switches`, summed over threads): each one is a
    /// sleep that something had to wake.
    package let voluntaryContextSwitches: UInt64
    /// Times a thread was preempted (`nonvoluntary_ctxt_switches`, summed over threads).
    package let involuntaryContextSwitches: UInt64
    /// Threads alive at the sample.
    package let threads: Int
    /// Resident set size (VmRSS) in bytes.
    package let residentBytes: UInt64

    /// Reads the usage of process `pid` from /proc/PID/task/*/{schedstat,status}, falling back to /proc/PID/stat
    /// for the CPU time.
    /// - Throws: `SystemError` when the process does not exist (ENOENT) or /proc cannot be read.
    package static func sample(processID pid: Int32) throws(SystemError) -> ProcessUsage {
        let base = "/proc/\(pid)"
        var schedstatNanoseconds: UInt64 = 0
        var voluntary: UInt64 = 0
        var involuntary: UInt64 = 0
        var resident: UInt64 = 0
        var threads = 0
        for task in try DirectoryListing.names(in: base + "/task") {
            // A thread that exits during the walk has no files left; it is simply not counted.
            guard let status = try? FileSystem.read("\(base)/task/\(task)/status") else { continue }
            threads += 1
            voluntary += field("voluntary_ctxt_switches", in: status) ?? 0
            involuntary += field("nonvoluntary_ctxt_switches", in: status) ?? 0
            if task == String(pid) { resident = (field("VmRSS", in: status) ?? 0) * 1024 }
            if kernelHasSchedstat, let text = try? FileSystem.read("\(base)/task/\(task)/schedstat") {
                schedstatNanoseconds += leadingNumber(text) ?? 0
            }
        }
        guard threads > 0 else { throw SystemError(errno: .noSuchProcess, operation: "read", subject: base + "/task") }
        let cpu = kernelHasSchedstat ? schedstatNanoseconds : try statNanoseconds(base + "/stat")
        let source: CPUSource = kernelHasSchedstat ? .schedstat : .stat
        return ProcessUsage(
            cpuNanoseconds: cpu, cpuSource: source, voluntaryContextSwitches: voluntary,
            involuntaryContextSwitches: involuntary, threads: threads, residentBytes: resident)
    }

    /// Whether this kernel keeps per-thread schedstat files (CONFIG_SCHED_INFO), checked once on this process.
    private static let kernelHasSchedstat = (try? FileSystem.read("/proc/self/schedstat")) != nil

    /// utime + stime (fields 14 and 15 of /proc/PID/stat) in nanoseconds. The fields are counted after the `)`
    /// that closes the command name, which may itself contain spaces and parentheses.
    private static func statNanoseconds(_ path: String) throws(SystemError) -> UInt64 {
        let text = try FileSystem.read(path)
        guard let close = text.lastIndex(of: UInt8(ascii: ")")) else {
            throw SystemError(errno: .invalidArgument, operation: "parse", subject: path)
        }
        let fields = text[(close + 1)...].split(separator: UInt8(ascii: " "))
        // After the name: state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
        guard fields.count > 12, let user = leadingNumber(fields[11]), let system = leadingNumber(fields[12]) else {
            throw SystemError(errno: .invalidArgument, operation: "parse", subject: path)
        }
        let ticksPerSecond = UInt64(max(sysconf(Int32(_SC_CLK_TCK)), 1))
        return (user + system) * 1_000_000_000 / ticksPerSecond
    }

    /// The number after `name:` on its own line of a /proc status file (`VmRSS:  1234 kB` gives 1234).
    private static func field(_ name: String, in text: [UInt8]) -> UInt64? {
        let key = Array(name.utf8) + [UInt8(ascii: ":")]
        for line in text.split(separator: UInt8(ascii: "\n")) where line.starts(with: key) {
            return leadingNumber(line.dropFirst(key.count).drop { $0 == 0x20 || $0 == 0x09 })
        }
        return nil
    }

    /// The decimal digits at the start of `bytes`, or `nil` when there are none.
    private static func leadingNumber<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64? {
        var value: UInt64 = 0
        var digits = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { break }
            value = value &* 10 &+ UInt64(byte - 0x30)
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
