/// The values the `update` key can take in this build, for the message when it is missing.
enum UpdateChoices {
    /// `{"builtin":"counter"}, {"builtin":"store"} or {"plugin":"sound"}`: every built-in app and every plugin the
    /// config declares; with no plugins declared, the plugin form says where its name must come from.
    static func listed(plugins: [String]) -> String {
        let builtins = BuiltinApps.all.keys.sorted().map { "{\"builtin\":\"\($0)\"}" }
        let pluginForms =
            plugins.isEmpty
            ? ["{\"plugin\":\"NAME\"} with NAME a key of \"plugins\""] : plugins.map { "{\"plugin\":\"\($0)\"}" }
        let all = builtins + pluginForms
        return all.dropLast().joined(separator: ", ") + " or " + all.last!
    }
}
