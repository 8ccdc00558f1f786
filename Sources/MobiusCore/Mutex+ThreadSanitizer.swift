#if TSan
    @_exported import SanitizerLocks

    /// ThreadSanitizer builds: this module's `Mutex` is a pthread mutex, whose locking TSan sees (docs/reliability.md).
    @usableFromInline typealias Mutex = PthreadMutex
#endif
