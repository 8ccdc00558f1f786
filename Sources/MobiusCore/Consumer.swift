/// A function that accepts values; the loop's observers and event sinks have this shape.
public typealias Consumer<Value> = (Value) -> Void

/// Wraps one consumer in another; used by `Mobius.Builder.withEventConsumerTransformer`.
public typealias ConsumerTransformer<Value> = (@escaping Consumer<Value>) -> Consumer<Value>
