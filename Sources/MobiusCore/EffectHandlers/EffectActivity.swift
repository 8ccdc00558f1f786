/// Sees effects begin and end, so test support (MobiusTest's `TestLoop`) can wait until handlers are quiet.
///
/// Routes capture the observer of the task that connects the router (`EffectActivity.$observer.withValue`), so
/// loops connected elsewhere never call it. Tracked: effects routed to an `EffectHandler` or handler closure until
/// their callback ends, async routes until their task finishes, and any route's work queued with `.on(queue:)`
/// until it has run.
@usableFromInline package protocol EffectActivityObserver: AnyObject, Sendable {
    /// An effect started; returns a token for `effectEnded`.
    func effectBegan(_ effect: String) -> Int
    /// The effect with `token` ended.
    func effectEnded(_ token: Int)
}

/// Where routes look for the current `EffectActivityObserver` when they are connected.
@usableFromInline package enum EffectActivity {
    // @usableFromInline: EffectRoute.perEffect, kept inlinable for the MobiusBench "roundtrip" rows, reads it.
    @TaskLocal @usableFromInline package static var observer: (any EffectActivityObserver)?
}
