// The errno classes a socket client reacts to, so callers need not compare errno values themselves.
extension SystemError {
    /// Whether the peer of a socket is gone: it closed or reset the connection (EPIPE, ECONNRESET).
    package var isPeerGone: Bool { errno == .brokenPipe || errno == .connectionReset }

    /// Whether a failed connect means nobody listens at the path: no socket file, or a stale one (ENOENT,
    /// ECONNREFUSED).
    package var suggestsNoListener: Bool { errno == .noSuchFile || errno == .connectionRefused }

    /// Whether a read on a socket with a receive timeout gave up because nothing arrived in time (EAGAIN).
    package var isTimedOut: Bool { errno == .wouldBlock }

    /// Whether a path was too long for the call, e.g. for a Unix socket address (ENAMETOOLONG).
    package var isPathTooLong: Bool { errno == .nameTooLong }
}
