/// A type-erased `Connectable`.
public struct AnyConnectable<Input, Output>: Connectable {
    private let connectClosure: (@escaping Consumer<Output>) -> Connection<Input>

    /// Wraps a connect function.
    public init(_ connect: @escaping (@escaping Consumer<Output>) -> Connection<Input>) {
        self.connectClosure = connect
    }

    /// Wraps another connectable with the same input and output.
    public init<Wrapped: Connectable>(_ connectable: Wrapped) where Wrapped.Input == Input, Wrapped.Output == Output {
        if let erased = connectable as? AnyConnectable<Input, Output> {
            self = erased
        } else {
            self.connectClosure = connectable.connect
        }
    }

    public func connect(_ consumer: @escaping Consumer<Output>) -> Connection<Input> {
        connectClosure(consumer)
    }
}
