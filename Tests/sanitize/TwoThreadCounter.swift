// Two threads add 1 to one counter under one lock, 100,000 times each, and the total is printed: the program
// tsan-locks.sh builds with ThreadSanitizer. With -DPTHREAD_LOCK the lock is SanitizerLocks' PthreadMutex
// (compiled in beside this file), else Synchronization's Mutex.
import Glibc
import Synchronization

enum Shared {
    #if PTHREAD_LOCK
        static let counter = PthreadMutex<Int>(0)
    #else
        static let counter = Mutex<Int>(0)
    #endif
}

func addMany() {
    for _ in 0..<100_000 { Shared.counter.withLock { $0 += 1 } }
}

/// `addMany` as a thread's start routine.
func addManyOnThread(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    addMany()
    return nil
}

@main enum TwoThreadCounter {
    static func main() {
        var thread = pthread_t()
        pthread_create(&thread, nil, addManyOnThread, nil)
        addMany()
        pthread_join(thread, nil)
        print(Shared.counter.withLock { $0 })
    }
}
