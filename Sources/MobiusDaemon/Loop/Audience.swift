/// Who hears of the committed model besides the replies: subscriptions, and monitors (which also get traces).
struct Audience {
    var subscriptions = SubscriptionHub()
    /// Monitoring connections, in the order they asked.
    var monitors: [ConnectionID] = []

    var isEmpty: Bool { subscriptions.isEmpty && monitors.isEmpty }
}
