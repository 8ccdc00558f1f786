extension FileDescriptor {
    /// Makes a blocking read on the socket fail with EAGAIN (``SystemError/isTimedOut``) when nothing arrives for
    /// `seconds`. The corresponding C call is `setsockopt(SO_RCVTIMEO)`.
    package func setReceiveTimeout(seconds: Int) throws(SystemError) {
        try Syscall.setReceiveTimeout(rawValue, seconds: seconds).get("setsockopt(SO_RCVTIMEO)", description)
    }
}
