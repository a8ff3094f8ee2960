import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

struct Film: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var title: String
    var year: Int
}

@Suite("Record stores")
struct RecordStoreTests {
    private func makeFilms() throws -> (TemporaryFolder, RecordStore<Film>) {
        let folder = TemporaryFolder()
        return (folder, try RecordStore<Film>.create(at: folder.child("films")))
    }

    @Test func saveFetchDeleteCountAndQuery() async throws {
        let (folder, films) = try makeFilms()
        _ = folder
        try await films.save(Film(id: "a", title: "Alien", year: 1979))
        try await films.save([Film(id: "b", title: "Brazil", year: 1985), Film(id: "c", title: "Cube", year: 1997)])
        #expect(try await films.record("b") == Film(id: "b", title: "Brazil", year: 1985))
        #expect(try await films.record("zzz") == nil)
        #expect(try await films.count() == 3)
        let eighties = try await films.query(where: { $0.year >= 1980 }, sortedBy: { $0.year > $1.year })
        #expect(eighties.map(\.id) == ["c", "b"])
        try await films.delete("a")
        #expect(try await films.count() == 2)
        #expect(throws: StoreError.recordNotFound(id: "a", fork: "main")) { try films.delete("a") }
        #expect(try await films.history().count == 4)  // create, one save, one batch save, one delete
        try await expectFsckClean(films.path)
    }

    @Test func aTransactionIsOneCommitAndAnUnchangedSaveIsNone() throws {
        let (folder, films) = try makeFilms()
        _ = folder
        let commit = try films.transaction(message: "Import") { changes in
            for year in 1990..<2000 { changes.save(Film(id: "f\(year)", title: "Film \(year)", year: year)) }
            changes.delete("f1995")
        }
        #expect(commit.subject == "Import")
        #expect(try films.count() == 9)
        let again = try films.save(Film(id: "f1990", title: "Film 1990", year: 1990))
        #expect(again.id == commit.id)
    }

    @Test func hostileIDsRoundTripExactly() async throws {
        let (folder, films) = try makeFilms()
        _ = folder
        let ids = [
            "../../x", ".git", "..", "con", "x/y", String(repeating: "é", count: 300), "e\u{301}", "é",
            "with space", "tab\there", "A", "a", "😀", "", "%41", "^a",
        ]
        try await films.save(ids.enumerated().map { Film(id: $1, title: "t\($0)", year: $0) })
        #expect(try await films.count() == ids.count)
        for (index, id) in ids.enumerated() {
            let film = try await #require(try films.record(id), "\(id.debugDescription)")
            #expect(film.title == "t\(index)")
            #expect(Array(film.id.utf8) == Array(id.utf8))
        }
        // Nothing escaped the records folder.
        let top = try await git("--git-dir", films.path, "ls-tree", "--name-only", "main").stdout
        #expect(top == "records\n")
        try await expectFsckClean(films.path)
    }

    @Test func aTooLargeRecordIsRefusedBeforeAnythingIsWritten() throws {
        let folder = TemporaryFolder()
        var options = StoreOptions()
        options.maximumRecordSize = 1_000
        let films = try RecordStore<Film>.create(at: folder.child("films"), options: options)
        let head = try films.head()
        #expect {
            try films.save([Film(id: "ok", title: "fine", year: 1), Film(id: "big", title: String(repeating: "x", count: 2_000), year: 2)])
        } throws: { error in
            guard let error = error as? StoreError, error.code == .recordTooLarge, let size = error.size else { return false }
            return error.recordID == "big" && size > 2_000 && error.limit == 1_000
        }
        #expect(try films.head() == head)
        #expect(try films.count() == 0)
    }

    @Test func gitReadsEachRecordAsJSON() async throws {
        let (folder, films) = try makeFilms()
        _ = folder
        try await films.save(Film(id: "Tt01", title: "Metropolis", year: 1927))
        let path = RecordPath(id: "Tt01").description
        let shown = try await git("--git-dir", films.path, "show", "main:\(path)")
        #expect(shown.status == 0)
        let json = try CanonicalJSON.parse(Array(shown.stdout.utf8))
        #expect(json["id"] == .string("Tt01"))
        #expect(json["record"]?["title"] == .string("Metropolis"))
    }

    @Test func aSaveWritesObjectsForItsPathOnlyWhateverTheSize() async throws {
        let (folder, films) = try makeFilms()
        _ = folder
        try await films.save((0..<2_000).map { Film(id: "film-\($0)", title: "Title \($0)", year: $0) })
        let before = try await git("--git-dir", films.path, "count-objects").stdout
        try await films.save(Film(id: "film-7", title: "Changed", year: 7))
        let after = try await git("--git-dir", films.path, "count-objects").stdout
        func loose(_ text: String) -> Int { Int(text.split(separator: " ").first ?? "0") ?? 0 }
        // One blob, three trees on its path, the root tree and the commit.
        #expect(loose(after) - loose(before) == 6)
    }

    @Test func storesOfTheOtherKindAreRefused() throws {
        let (folder, films) = try makeFilms()
        _ = folder
        #expect {
            try Store<Film>.open(at: films.path)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .notAStore, let reason = error.reason else { return false }
            return reason.contains("RecordStore")
        }
        let single = try Store<Doc>.create(at: folder.child("single"))
        #expect(throws: StoreError.self) { try RecordStore<Film>.open(at: single.path) }
    }
}
