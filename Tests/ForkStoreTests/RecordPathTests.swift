import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Record paths")
struct RecordPathTests {
    static let hostileIDs = [
        "../../x", ".git", "..", ".", "con", "CON", "nul", "x/y", "a\\b", String(repeating: "é", count: 300),
        "e\u{301}", "é", "with space", "tab\there", "nul\u{0}byte", "", "A", "a", "%41", "^a", "~", "-", "_",
        "com1", "Lpt9", "😀", "line\nbreak", String(repeating: "x", count: 300),
    ]

    @Test func namesStayInsideTheirFolderAndAreSafeOnAnyDisk() {
        for id in Self.hostileIDs {
            let path = RecordPath(id: id)
            let name = String(path.fileName.dropLast(".json".count))
            #expect(!name.isEmpty && name.utf8.count <= 150 + 1 + 40, "\(id)")
            #expect(name.utf8.allSatisfy { byte in
                (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || [0x5F, 0x2D, 0x25, 0x5E, 0x7E].contains(byte)
            }, "unsafe byte in the name of \(id.debugDescription)")
            #expect(!["con", "nul", "prn", "aux"].contains(name), "\(id)")
            #expect(path.shards.count == 2 && path.shards.allSatisfy { $0.count == 2 })
        }
    }

    /// The byte comparison a listing checks each record with agrees with the path built.
    @Test func aPathIsRecognisedAsItsIDsAndNoOthers() {
        let paths = Self.hostileIDs.map { RecordPath(id: $0).description }
        for (id, path) in zip(Self.hostileIDs, paths) {
            #expect(RecordPath.isPath(path, of: id), "\(id.debugDescription)")
            #expect(!RecordPath.isPath(path + "x", of: id) && !RecordPath.isPath(String(path.dropFirst()), of: id))
            #expect(!RecordPath.isPath(path.uppercased(), of: id), "\(id.debugDescription)")
            #expect(paths.filter { RecordPath.isPath($0, of: id) }.count == 1, "\(id.debugDescription)")
        }
    }

    @Test func distinctIDsGetDistinctPathsEvenIgnoringCase() {
        var seen: [String: String] = [:]
        for id in Self.hostileIDs + (0..<2_000).map({ "id-\($0)" }) {
            let key = RecordPath(id: id).description.lowercased()
            #expect(seen[key] == nil, "\(id.debugDescription) collides with \(seen[key]?.debugDescription ?? "")")
            seen[key] = id
        }
    }

    @Test func theShardIsTheGitBlobIDOfTheRecordID() async throws {
        let path = RecordPath(id: "Hello World")
        let hash = try await git("hash-object", "--stdin", input: "Hello World").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.shards == [String(hash.prefix(2)), String(hash.dropFirst(2).prefix(2))])
        #expect(path.fileName == "^hello%20^world.json")
        #expect(path.description == "records/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/^hello%20^world.json")
    }
}
