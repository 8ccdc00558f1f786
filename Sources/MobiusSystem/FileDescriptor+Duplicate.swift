extension FileDescriptor {
    /// Makes `target` another descriptor for this open file, closing what `target` was. The corresponding C
    /// function is `dup2`.
    package func duplicate(onto target: FileDescriptor) throws(SystemError) {
        _ = try Syscall.dup2(rawValue, onto: target.rawValue).get("dup2", "\(description) onto \(target)")
    }

    /// Standard input.
    package static let standardInput = FileDescriptor(rawValue: 0)
}
