/// A type-erased `Connectable`.
public struct AnyConnectable<Input, Output>: Connectable {
    // Kept @inlinable: every MobiusBench row (the loop connects its effect handler through it).
    @usableFromInline let connectClosure: (@escaping Consumer<Output>) -> Connection<Input>

    /// Wraps a connect function.
    @inlinable public init(_ connect: @escaping (@escaping Consumer<Output>) -> Connection<Input>) {
        self.connectClosure = connect
    }

    /// Wraps another connectable with the same input and output.
    @inlinable public init<Wrapped: Connectable>(_ connectable: Wrapped)
    where Wrapped.Input == Input, Wrapped.Output == Output {
        if let erased = connectable as? AnyConnectable<Input, Output> {
            self = erased
        } else {
            self.connectClosure = connectable.connect
        }
    }

    /// Connects through the wrapped connect function or connectable.
    @inlinable public func connect(_ consumer: @escaping Consumer<Output>) -> Connection<Input> {
        connectClosure(consumer)
    }
}
