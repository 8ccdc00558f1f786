/// Something that holds a resource until `dispose()` is called.
///
/// `dispose()` must be safe to call more than once; calls after the first do nothing.
public protocol Disposable: AnyObject {
    /// Releases the resource. Idempotent.
    func dispose()
}
