/// How the daemon keeps an app's model within JSON's nesting limit (docs/protocol.md 1.5), so that no model it
/// publishes or journals is deeper than the parser accepts and nothing recurses past its stack on one.
///
/// The check is per event, never per pass: pass boundaries depend on timing, and replaying the journal must reject
/// exactly the events the live daemon rejected.
enum ModelDepthCheck: Sendable {
    /// The app's update guarantees it (the built-ins check their events instead).
    case boundedByApp
    /// Each changed model is encoded (a typed model with the encoder's depth limit) and measured after the event; a
    /// model too deep rejects the event. The encoding is kept for publication.
    case eachEvent
}
