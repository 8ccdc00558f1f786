/// Something that can be connected to an output consumer, giving back a `Connection` that accepts input.
///
/// Effect handlers are `Connectable`s from effects to events; views are `Connectable`s from models to events.
public protocol Connectable {
    /// What the connection accepts.
    associatedtype Input
    /// What the connectable sends to the consumer.
    associatedtype Output

    /// Connects the consumer. The connectable may send output until the returned connection is disposed.
    func connect(_ consumer: @escaping Consumer<Output>) -> Connection<Input>
}

extension Connectable {
    /// A connectable whose output is transformed by `transform` before it reaches the consumer.
    public func map<NewOutput>(_ transform: @escaping (Output) -> NewOutput) -> AnyConnectable<Input, NewOutput> {
        AnyConnectable { consumer in
            self.connect { output in consumer(transform(output)) }
        }
    }

    /// A connectable that accepts `NewInput`, transformed by `transform` into this connectable's input.
    public func contramap<NewInput>(_ transform: @escaping (NewInput) -> Input) -> AnyConnectable<NewInput, Output> {
        AnyConnectable { consumer in
            let inner = self.connect(consumer)
            return Connection(acceptClosure: { inner.accept(transform($0)) }, disposeClosure: inner.dispose)
        }
    }
}
