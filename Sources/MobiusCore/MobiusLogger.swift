/// Observes a loop's initiate and update calls, for logging and debugging.
///
/// Calls happen on the thread that runs the loop, around each call of the pure functions.
public protocol MobiusLogger {
    associatedtype Model
    associatedtype Event
    associatedtype Effect

    /// Called before `initiate` runs.
    func willInitiate(model: Model)
    /// Called after `initiate` returned `first`.
    func didInitiate(model: Model, first: First<Model, Effect>)
    /// Called before `update` runs for `event`.
    func willUpdate(model: Model, event: Event)
    /// Called after `update` returned `next`.
    func didUpdate(model: Model, event: Event, next: Next<Model, Effect>)
}
