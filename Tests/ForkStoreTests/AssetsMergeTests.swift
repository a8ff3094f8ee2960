import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Assets: merges")
struct AssetsMergeTests {
    /// How the conflict is decided: by the merge's own rule (the later write wins), or by the
    /// app, which takes the side merged from.
    enum Decider: String, CaseIterable, Sendable, CustomStringConvertible {
        case strategy, app
        var description: String { rawValue }
        var resolver: ConflictResolver? {
            guard self == .app else { return nil }
            return { _ in ConflictResolution.theirs }
        }
    }

    /// Two forks replace the same asset at once: the merge takes one reference whole (a
    /// reference merges as a value), as its strategy or the app decides; the other version
    /// stays reachable through history, and collection keeps both, and the one they replaced.
    @Test(arguments: Layout.allCases, Decider.allCases)
    func concurrentReplacementsMergeAsValuesAndBothStay(_ layout: Layout, _ decider: Decider) async throws {
        let clock = TestClock(Date())
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let phone = try Fork("phone")
        let save: @Sendable (Asset, Fork) async throws -> Void
        let read: @Sendable () async throws -> Asset?
        let store: any VersionedStore
        switch layout {
        case .value:
            let values = try await Store<Poster>.create(at: path, options: clock.options)
            save = { asset, fork in try await values.save(Poster(title: "poster", image: asset), to: fork) }
            read = { try await values.value()?.image }
            store = values
        case .records:
            let records = try await RecordStore<Attachment>.create(at: path, options: clock.options)
            save = { asset, fork in try await records.save(Attachment(id: "a", title: "poster", file: asset), to: fork) }
            read = { try await records.record("a")?.file }
            store = records
        }
        let original = try await store.addAsset(Data("original".utf8), fileName: "poster.png")
        try await save(original, .main)
        try await store.createFork(phone)
        clock.advance(1)
        let fromPhone = try await store.addAsset(Data("taken on the phone".utf8), fileName: "poster.png")
        try await save(fromPhone, phone)
        clock.advance(1)
        let fromLaptop = try await store.addAsset(Data("drawn on the laptop".utf8), fileName: "poster.png")
        try await save(fromLaptop, .main)

        guard case .merged(let merge, let conflicts) = try await store.merge(from: phone, into: .main, resolvingConflicts: decider.resolver)
        else {
            Issue.record("expected a merge commit")
            return
        }
        let expected = decider == .app ? fromPhone : fromLaptop
        #expect(try await read() == expected)
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.strategy == "last-writer-wins")
        #expect(conflicts.first?.overriddenByApp == (decider == .app))
        #expect(merge.parents.count == 2)

        // The fork goes; its version stays in history, behind the merge.
        let phoneHead = try await store.head(of: phone)
        try await store.deleteFork(phone)
        #expect(try await store.history().contains { $0.id == phoneHead.id })
        let unused = try await store.addAsset(Data("unused".utf8))
        clock.advance(7200)
        #expect(try await store.collectAssets() == AssetCollection(removed: 1, bytesFreed: unused.size, kept: 3))
        for asset in [original, fromPhone, fromLaptop] { #expect(store.isLocal(asset)) }
        try await expectFsckClean(path)
    }
}
