import Dispatch
import MobiusCore

struct SearchModel: Equatable {
    var query = ""
    var results: [String] = []
    var searching = false
}

enum SearchEvent: Equatable {
    case queryChanged(String)
    case results([String])
}

enum SearchEffect: Equatable {
    case search(String)
}

func searchUpdate(model: SearchModel, event: SearchEvent) -> Next<SearchModel, SearchEffect> {
    var model = model
    switch event {
    case .queryChanged(let query):
        model.query = query
        model.searching = true
        return .next(model, effects: [.search(query)])
    case .results(let results):
        model.results = results
        model.searching = false
        return .next(model)
    }
}

/// A search backend that answers on its own queue, the way a network client would.
func searchRouter(
    catalog: [String], queue: DispatchQueue = DispatchQueue(label: "search-backend")
) -> EffectRouter<SearchEffect, SearchEvent> {
    EffectRouter<SearchEffect, SearchEvent>()
        .routeCase(SearchEffect.search).to { query, callback in
            queue.async {
                callback.send(.results(catalog.filter { $0.hasPrefix(query) }))
                callback.end()
            }
            return AnonymousDisposable {}
        }
}
