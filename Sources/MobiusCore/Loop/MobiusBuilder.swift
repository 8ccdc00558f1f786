extension Mobius {
    /// An immutable loop configuration. Each `with…` call returns a new builder; `start` or `makeController` ends it.
    public struct Builder<Model, Event, Effect> {
        // Kept @inlinable on init and start: every MobiusBench row (they build the loop the rows run).
        @usableFromInline let update: Update<Model, Event, Effect>
        @usableFromInline let effectHandler: AnyConnectable<Effect, Event>
        @usableFromInline var eventSource: AnyEventSource<Event>?
        @usableFromInline var modelSources: [AnyConnectable<Model, Event>] = []
        @usableFromInline var eventConsumerTransformer: ConsumerTransformer<Event>?
        @usableFromInline var logger: AnyMobiusLogger<Model, Event, Effect>?

        @inlinable init(update: Update<Model, Event, Effect>, effectHandler: AnyConnectable<Effect, Event>) {
            self.update = update
            self.effectHandler = effectHandler
        }

        /// Returns a builder with `eventSource` as the loop's event source, replacing any earlier one.
        ///
        /// A loop subscribes when it starts and disposes the subscription when disposed; a controller subscribes on
        /// every `start()` and disposes on `stop()`.
        public func withEventSource<Source: EventSource>(_ eventSource: Source) -> Builder
        where Source.Event == Event {
            var copy = self
            copy.eventSource = AnyEventSource(eventSource)
            return copy
        }

        /// Returns a builder with a model-driven event source added: it receives the current model on start and
        /// every new model after (before that model's effects run), and may send events at any time.
        ///
        /// Use it for sources whose subscriptions depend on state, such as a timer that runs only while a model
        /// field is set.
        public func withEventSource<Source: Connectable>(_ eventSource: Source) -> Builder
        where Source.Input == Model, Source.Output == Event {
            var copy = self
            copy.modelSources.append(AnyConnectable(eventSource))
            return copy
        }

        /// Returns a builder with `logger` replacing any earlier logger.
        public func withLogger<Logger: MobiusLogger>(_ logger: Logger) -> Builder
        where Logger.Model == Model, Logger.Event == Event, Logger.Effect == Effect {
            var copy = self
            copy.logger = AnyMobiusLogger(logger)
            return copy
        }

        /// Returns a builder whose event consumers are wrapped by `transformer`, after any earlier transformer.
        ///
        /// The transformer wraps the function that takes an event into the loop; it can move events to another
        /// thread. Every event (dispatched, from effects, from sources) passes through it.
        public func withEventConsumerTransformer(
            _ transformer: @escaping ConsumerTransformer<Event>
        ) -> Builder {
            var copy = self
            if let earlier = eventConsumerTransformer {
                copy.eventConsumerTransformer = { consumer in transformer(earlier(consumer)) }
            } else {
                copy.eventConsumerTransformer = transformer
            }
            return copy
        }

        /// Starts a loop from `initialModel`, dispatching `effects` first.
        @inlinable public func start(
            from initialModel: Model, effects: [Effect] = []
        ) -> MobiusLoop<Model, Event, Effect> {
            MobiusLoop(
                model: initialModel,
                effects: effects,
                update: update,
                effectHandler: effectHandler,
                eventSource: eventSource,
                modelSources: modelSources,
                eventConsumerTransformer: eventConsumerTransformer,
                logger: logger
            )
        }
    }
}
