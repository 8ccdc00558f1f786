extension SystemProcess {
    /// The path of the running executable, from /proc/self/exe; `nil` when it cannot be read. The corresponding C
    /// function is `readlink`.
    package static var executablePath: String? {
        guard let path = try? Syscall.readlink("/proc/self/exe").get(), !path.isEmpty else { return nil }
        return path
    }
}
