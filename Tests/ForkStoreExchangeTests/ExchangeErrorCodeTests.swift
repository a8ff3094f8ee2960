import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Sync errors are matched by code, and a store's error inside one keeps its own code and
/// libgit2's.
@Suite("Exchange error codes")
struct ExchangeErrorCodeTests {
    @Test func aRefusedConnectionIsOfflineDuringTheFetch() async throws {
        let lab = try await SyncLab()
        // Nothing listens on port 1: the connection is refused at once.
        let (store, exchange) = try lab.replica("one", url: "git://127.0.0.1:1/remote.git")
        try store.add("kept")
        do {
            try await exchange.sync()
            Issue.record("a sync to a closed port succeeded")
        } catch ExchangeError.offline {
            #expect(exchange.status.lastError?.operation == "fetch", "\(String(describing: exchange.status.lastError))")
            #expect(exchange.status.lastError?.remote == "git://127.0.0.1:1/remote.git")
        } catch {
            Issue.record("expected offline, got \(error)")
        }
        #expect(try store.items() == ["kept"])
    }

    @Test func aStoresErrorKeepsItsCodeInsideTheExchangesError() {
        let inner = StoreError.repository(operation: "writing a tree", reason: "disk full", underlyingCode: -1)
        let error = ExchangeError.store(inner)
        #expect(error.code == .store && error.storeError == inner)
        #expect(error.operation == "writing a tree" && error.underlyingCode == -1)
        #expect(error.description == inner.description)
        #expect(ExchangeError.store ~= error)
        // Each type's codes match its own errors only.
        #expect(!(StoreError.repository ~= error))
        #expect(!(ExchangeError.store ~= inner))
        #expect(!error.isTransient)
    }

    @Test func detailsAreProperties() throws {
        let commit = try #require(CommitID(String(repeating: "0f", count: 20)))
        let halted = ExchangeError.halted(found: 3, known: 1, commit: commit)
        #expect(halted.foundVersion == 3 && halted.supportedVersion == 1 && halted.commit == commit)
        let tooLarge = ExchangeError.tooLarge(remote: "r", limit: .objectCount, maximum: 10, size: 11, object: "the pack's header")
        #expect(tooLarge.limit == .objectCount && tooLarge.maximum == 10 && tooLarge.size == 11)
        #expect(tooLarge.object == "the pack's header" && tooLarge.remote == "r")
        let busy = ExchangeError.busy(waited: .milliseconds(500))
        #expect(busy.waited == .milliseconds(500) && busy.isTransient)
        #expect(busy.description.contains("waited 500 ms"))
        #expect(ExchangeError.offline(remote: "r", reason: "x").isTransient)
        #expect(ExchangeError.pushRejected(remote: "r", attempts: 3, reason: "x").attempts == 3)
    }

    @Test func codesHaveDistinctStableNamesAndNoneIsLeftOut() throws {
        let names = ExchangeError.Code.all.map(\.rawValue)
        #expect(Set(names).count == names.count)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(
            contentsOf: root.appendingPathComponent("Sources/ForkStoreExchange/ExchangeError.swift"), encoding: .utf8)
        let declared = source.components(separatedBy: "= Code(rawValue: \"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(declared.sorted() == names.sorted())
        #expect(ExchangeError.Code.offline.rawValue == "offline")
    }
}
