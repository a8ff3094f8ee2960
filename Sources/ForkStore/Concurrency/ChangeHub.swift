import Synchronization

/// Fans each change out to every live subscriber of a store's change stream.
final class ChangeHub: Sendable {
    private let subscribers = Mutex<(next: Int, continuations: [Int: AsyncStream<StoreChange>.Continuation])>(
        (0, [:]))

    func subscribe() -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream<StoreChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
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

    func publish(_ change: StoreChange) {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            continuation.yield(change)
        }
    }

    deinit {
        subscribers.withLock { state in
            for continuation in state.continuations.values { continuation.finish() }
        }
    }
}
