@testable import ForkStore
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// The check ahead of a fetch's walk (``RecordLayout/checkAhead(_:limits:memory:in:)``) tells
/// the walk's memory about the record blobs that pass every check a record file's blob passes,
/// and about no other blob.
@Suite("Incoming check ahead")
struct IncomingCheckAheadTests {
    /// Where the check ahead reads the blobs: the indexed packs after the fetch, or the pack
    /// as it arrives (here it arrives whole before the reading starts).
    enum Source: CaseIterable { case indexedPacks, arrivingPack }

    @Test(arguments: Source.allCases) func remembersTheRecordBlobsThatPassAndNoOther(readingFrom source: Source) async throws {
        let folder = TemporaryFolder()
        let films = try await RecordStore<Film>.create(at: folder.child("films"))
        for index in 0..<20 {
            try await films.save(Film(id: "f\(index)", title: String(repeating: "t", count: index * 20), year: 1900 + index))
        }
        // Beside them in the pack: a blob that is JSON but not in canonical form, one holding
        // a record of a newer model version, one that is no JSON at all, and a record no tree
        // holds (the check is of blobs; the walk holds each to its path).
        var strays: [String] = []
        for text in [#"{"id":"f1","modelVersion":1,"record":{"id":"f1","title":"","year":1}}"#,
                     "{\n  \"id\": \"f2\",\n  \"modelVersion\": 7,\n  \"record\": {\n    \"id\": \"f2\",\n    \"title\": \"\",\n    \"year\": 1\n  }\n}\n",
                     "not JSON\n",
                     "{\n  \"id\": \"z\",\n  \"modelVersion\": 1,\n  \"record\": {\n    \"id\": \"z\",\n    \"title\": \"\",\n    \"year\": 1\n  }\n}\n"] {
            let blob = try await git("--git-dir", films.path, "hash-object", "-w", "--stdin", input: text).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await git("--git-dir", films.path, "update-ref", "refs/stray/\(strays.count)", blob).status == 0)
            strays.append(blob)
        }
        #expect(try await git("--git-dir", films.path, "repack", "-adq").status == 0)
        var blobs: [String: String] = [:]
        for index in 0..<20 {
            let path = RecordPath(id: "f\(index)").description
            blobs["f\(index)"] = try await git("--git-dir", films.path, "rev-parse", "main:\(path)").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        let limit = 300
        let copy = folder.child("arriving.pack")
        let checked = try await onOwnThread { [blobs, strays] in
            try films.engine.read { session in
                let memory = IncomingCheckMemory()
                let head = try session.head(of: .main)
                let origin = DataOrigin(head), limits = BlobLimits(size: limit)
                switch source {
                case .indexedPacks:
                    try RecordLayout<Film>().checkAhead(origin, limits: limits, memory: memory, in: session)
                case .arrivingPack:
                    let arriving = try ArrivingPack(path: copy)
                    let packs = session.repository.packs()
                    try #require(packs.count == 1)
                    let check = try IncomingPackCheck(limits: IncomingLimits(maximumObjectSize: 1 << 20, maximumFetchSize: 1 << 30))
                    check.entryEnded = { arriving.entryArrived($0) }
                    try Data(contentsOf: URL(fileURLWithPath: packs[0].base + ".pack")).withUnsafeBytes { bytes in
                        try check.consume(bytes)
                        arriving.write(bytes)
                    }
                    try check.finish()
                    arriving.complete()
                    let ahead = try #require(RecordLayout<Film>().startCheckAhead(origin, limits: limits, reading: .arriving(arriving)))
                    #expect(ahead.finish(into: memory), "every blob of the pack was read")
                }
                let records = blobs.mapValues { memory.checkedRecord(ObjectID(hex: $0)!, modelVersion: head.modelVersion) }
                let others = strays.map { memory.checkedRecord(ObjectID(hex: $0)!, modelVersion: head.modelVersion) }
                return (records, others)
            }
        }
        for index in 0..<20 {
            let size = try await git("--git-dir", films.path, "cat-file", "-s", blobs["f\(index)"]!).stdout
            let fits = (Int(size.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max) <= limit
            #expect(checked.0["f\(index)"] ?? nil == (fits ? "f\(index)" : nil), "f\(index), \(size) bytes")
        }
        #expect(checked.0.values.contains { $0 == nil } && checked.0.values.contains { $0 != nil }, "some fit the limit, some do not")
        #expect(checked.1 == [nil, nil, nil, "z"])
    }

    /// The check of a fetch starts with the check ahead, once per model version however many
    /// lineages it checks: the walk then checks no record blob itself.
    @Test func theCheckOfAFetchChecksAheadOnce() async throws {
        let folder = TemporaryFolder()
        let films = try await RecordStore<Film>.create(at: folder.child("films"))
        for index in 0..<20 {
            try await films.save(Film(id: "f\(index)", title: "t\(index)", year: 1900 + index))
        }
        #expect(try await git("--git-dir", films.path, "repack", "-adq").status == 0)
        let walked = try await onOwnThread {
            try films.engine.read { session in
                let head = try session.head(of: .main)
                var aheadChecks: [Int] = []
                func walkChecks(_ memory: IncomingCheckMemory) throws -> Int {
                    let (before, aheadBefore) = (memory.recordsCheckedByWalk, memory.recordsCheckedAhead)
                    _ = try films.engine.validateIncoming(head.id.objectID, notIn: [], trusting: nil, in: session, memory: memory)
                    aheadChecks.append(memory.recordsCheckedAhead - aheadBefore)
                    return memory.recordsCheckedByWalk - before
                }
                let memory = IncomingCheckMemory()
                let first = try walkChecks(memory), second = try walkChecks(memory)
                let checkedAgain = memory.startsCheckAhead(for: head.modelVersion)
                // Without the check ahead, the walk checks every record blob itself.
                let unchecked = IncomingCheckMemory()
                _ = unchecked.startsCheckAhead(for: head.modelVersion)
                let withoutCheckAhead = try walkChecks(unchecked)
                return (first, second, checkedAgain, withoutCheckAhead, aheadChecks)
            }
        }
        // The second check of the same fetch reads nothing ahead again.
        #expect(walked.4 == [20, 0, 0], "records checked ahead by each check: \(walked.4)")
        #expect(walked.0 == 0 && walked.1 == 0, "the walk checked \(walked.0), then \(walked.1) record blobs itself")
        #expect(!walked.2, "the fetch was to be checked ahead again")
        #expect(walked.3 == 20)
    }

    /// While the check ahead runs, the walk leaves record files for later and goes on reading
    /// trees; a commit that breaks a rule of its tree after a bad record file still fails for
    /// the record, as it does when each file is checked where the walk meets it.
    @Test func aWalkThatLeavesRecordsForLaterReportsTheSameFirstFailure() async throws {
        let folder = TemporaryFolder()
        let films = try await RecordStore<Film>.create(at: folder.child("films"))
        func object(_ arguments: String..., input: String) async throws -> String {
            try await git(["--git-dir", films.path] + arguments, input: input).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let good = try await object(
            "hash-object", "-w", "--stdin",
            input: "{\n  \"id\": \"g\",\n  \"modelVersion\": 1,\n  \"record\": {\n    \"id\": \"g\",\n    \"title\": \"G\",\n    \"year\": 2000\n  }\n}\n")
        let bad = try await object("hash-object", "-w", "--stdin", input: "not JSON\n")
        let goodPath = RecordPath(id: "g").description.split(separator: "/").map(String.init)
        // records/<good's shards>/<good>, then records/<shard>/00/x.json holding no JSON, then a
        // shard folder named against the rules: three commits, the bad parts in different orders.
        func tree(_ entries: [(mode: String, name: String, id: String)]) async throws -> String {
            let lines = entries.sorted { $0.name < $1.name }.map { "\($0.mode) \($0.mode == "040000" ? "tree" : "blob") \($0.id)\t\($0.name)\n" }
            return try await object("mktree", input: lines.joined())
        }
        let goodFile = try await tree([("100644", goodPath[3], good)])
        let goodShard = try await tree([("040000", goodPath[2], goodFile)])
        let badFile = try await tree([("100644", "x.json", bad)])
        let badShard = try await tree([("040000", "00", badFile)])
        let ruleBreaker = try await tree([("040000", "zz", badFile)])
        var commits: [String] = []
        for shards in [[(goodPath[1], goodShard), ("fe", badShard)], [(goodPath[1], goodShard), ("fe", ruleBreaker)], [("01", badShard), ("zz", goodShard)]] {
            let records = try await tree(shards.map { ("040000", $0.0, $0.1) })
            let root = try await tree([("040000", "records", records)])
            commits.append(try await object("commit-tree", root, "-m", "Hostile\n\nModel-Version: 1", input: ""))
        }
        let outcomes = try await onOwnThread { [commits] in
            try films.engine.read { session in
                try commits.map { hex in
                    let commit = try session.commit(ObjectID(hex: hex)!)
                    let layout = try RecordLayout<Film>(), limits = BlobLimits(size: 10_000)
                    func failure(_ check: () throws -> CheckedTree) -> String {
                        do { return "passed, \(try check().walked.count) objects" } catch { return String(describing: error) }
                    }
                    let atOnce = failure {
                        try layout.validate(commit, against: nil, limits: limits, memory: IncomingCheckMemory(), deferringRecords: false, in: session)
                    }
                    let later = failure {
                        let memory = IncomingCheckMemory()
                        let walked = try layout.validate(commit, against: nil, limits: limits, memory: memory, deferringRecords: true, in: session)
                        return try layout.checkDeferredRecords(of: walked, in: commit, limits: limits, memory: memory, session: session)
                    }
                    return (atOnce, later)
                }
            }
        }
        for (atOnce, later) in outcomes { #expect(atOnce == later) }
        #expect(outcomes[0].0.contains("not valid JSON"), "\(outcomes[0].0)")
        #expect(outcomes[1].0.contains("two lowercase hexadecimal digits"), "\(outcomes[1].0)")
        #expect(outcomes[2].0.contains("not valid JSON"), "\(outcomes[2].0)")
    }
}
