internal import CSystemd
import MobiusSystem

/// The listening socket systemd passed (`LISTEN_FDS`, `LISTEN_FDNAMES`), preferring the one named `control`.
///
/// The socket stays systemd's: the daemon never unlinks its path, so the next start (or a client queued meanwhile)
/// finds it.
struct SocketActivation {
    /// The listening socket, non-blocking.
    let listener: FileDescriptor
    /// Its name (`FileDescriptorName=`; systemd's default is the socket unit's name).
    let name: String
    /// The path it is bound to, when it has one.
    let path: String?

    /// Takes the passed sockets, if any, and clears the variables so plugins do not inherit them. Throws when
    /// systemd passed descriptors but none is a listening AF_UNIX stream socket, or the variables are malformed.
    /// Descriptors it does not use are closed. The corresponding C function is `sd_listen_fds_with_names`.
    static func take() throws(DaemonStartError) -> SocketActivation? {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(1, &names)
        defer { mobiusd_free_names(names) }
        if count < 0 {
            let error = SystemError(errno: Errno(rawValue: -count), operation: "sd_listen_fds", subject: "LISTEN_FDS")
            throw DaemonStartError(
                description: "socket activation: LISTEN_FDS or LISTEN_FDNAMES is malformed (\(error))")
        }
        guard count > 0 else { return nil }
        let passed = (0..<Int(count)).map { index in
            let name = names?[index].map { String(cString: $0) } ?? "unknown"
            return (fd: FileDescriptor(rawValue: MOBIUSD_SD_LISTEN_FDS_START + Int32(index)), name: name)
        }
        let usable = passed.filter { UnixSocket.isListeningUnixStream($0.fd) }
        guard let chosen = usable.first(where: { $0.name == "control" }) ?? usable.first else {
            for socket in passed { socket.fd.close() }
            let list = passed.map { "\($0.name) (fd \($0.fd.rawValue))" }.joined(separator: ", ")
            throw DaemonStartError(
                description: "socket activation: systemd passed \(list), but none is a listening Unix stream socket "
                    + "(ListenStream=/path in the .socket unit)")
        }
        for socket in passed where socket.fd != chosen.fd { socket.fd.close() }
        do {
            try chosen.fd.setNonBlocking()
        } catch {
            chosen.fd.close()
            throw DaemonStartError(description: "socket activation: \(error)")
        }
        return SocketActivation(listener: chosen.fd, name: chosen.name, path: UnixSocket.localPath(chosen.fd))
    }
}
