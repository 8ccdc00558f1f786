/// Entry point for building loops: `Mobius.loop(update:effectHandler:)`.
public enum Mobius {
    // Kept @inlinable on loop(update:effectHandler:): every MobiusBench row (it fixes the loop's types).
    /// Starts configuring a loop from an `Update` and an effect handler.
    ///
    /// - Parameters:
    ///   - update: the pure update function.
    ///   - effectHandler: a `Connectable` from effects to events, such as `EffectRouter(...).asConnectable`.
    @inlinable public static func loop<Model, Event, Effect, Handler: Connectable>(
        update: Update<Model, Event, Effect>,
        effectHandler: Handler
    ) -> Builder<Model, Event, Effect> where Handler.Input == Effect, Handler.Output == Event {
        Builder(update: update, effectHandler: AnyConnectable(effectHandler))
    }

    /// Starts configuring a loop from an update function and an effect handler.
    @inlinable public static func loop<Model, Event, Effect, Handler: Connectable>(
        update: @escaping (Model, Event) -> Next<Model, Effect>,
        effectHandler: Handler
    ) -> Builder<Model, Event, Effect> where Handler.Input == Effect, Handler.Output == Event {
        loop(update: Update(update), effectHandler: effectHandler)
    }
}
