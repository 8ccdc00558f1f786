#if TSan
    import SanitizerLocks

    /// ThreadSanitizer builds: this module's `Mutex` is a pthread mutex, whose locking TSan sees (docs/reliability.md).
    typealias Mutex = PthreadMutex
#endif
