import ForkStoreLocks

/// Fans each event out to every live subscriber: the store's change stream, the exchange's
/// events.
package final class EventHub<Event: Sendable>: Sendable {
    private let subscribers = Locked<(next: Int, continuations: [Int: AsyncStream<Event>.Continuation])>((0, [:]))

    package init() {}

    package func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let key = subscribers.withLock { state in
            let key = state.next
            state.next += 1
            state.continuations[key] = continuation
            return key
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    package func publish(_ event: Event) {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            continuation.yield(event)
        }
    }

    deinit {
        subscribers.withLock { state in
            for continuation in state.continuations.values { continuation.finish() }
        }
    }
}
