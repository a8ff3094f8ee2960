import ForkStore
import Observation

/// A query's results kept current for an interface: an `@Observable` model on the main actor
/// whose ``records`` follow `RecordStore.results(of:in:checkInterval:)`.
///
/// ```swift
/// @MainActor
/// func makeList(store: RecordStore<Film>) -> LiveQuery<Film> {
///     LiveQuery(store, RecordQuery<Film>().sorted(by: \.year).limit(20))
/// }
/// ```
///
/// In SwiftUI, a view that reads `live.records` redraws when they change. The model stops
/// following the store when it is released.
@MainActor
@Observable
public final class LiveQuery<Record: IndexedRecord> {
    /// The latest results; empty until the first answer.
    public private(set) var records: [Record] = []
    /// Whether the first answer is still being computed.
    public private(set) var isLoading = true
    /// What stopped the results from following the store (a deleted fork, newer data), if
    /// anything did.
    public private(set) var error: (any Error)?

    @ObservationIgnored private var following: Task<Void, Never>?

    /// Starts following `query` on `fork` of `store`.
    public init(_ store: RecordStore<Record>, _ query: RecordQuery<Record>, in fork: Fork = .main) {
        let results = store.results(of: query, in: fork)
        following = Task { [weak self] in
            do {
                for try await records in results {
                    guard let self else { return }
                    self.records = records
                    self.isLoading = false
                }
            } catch {
                self?.error = error
                self?.isLoading = false
            }
        }
    }

    isolated deinit {
        following?.cancel()
    }
}
