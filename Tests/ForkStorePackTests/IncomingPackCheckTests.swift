import ForkStorePack
import ForkStoreTestSupport
import Foundation
import Testing

/// A pack as a fetch receives it, built entry by entry: headers as git writes them, data
/// compressed, and a checksum the check does not read (the indexer does).
private struct PackBytes {
    private(set) var bytes: [UInt8] = []
    /// Where each entry starts.
    private(set) var offsets: [Int] = []

    init(entries: Int) {
        bytes = Array("PACK".utf8) + [0, 0, 0, 2] + withUnsafeBytes(of: UInt32(entries).bigEndian) { Array($0) }
    }

    /// Appends an entry of `type` whose data (a whole object, or a delta) is `data`, its header
    /// declaring `declared` bytes (the data's size unless a test lies). Returns its number.
    @discardableResult
    mutating func append(_ type: EntryHeader.EntryType, _ data: [UInt8], declaring declared: Int? = nil, base: Int? = nil) throws -> Int {
        offsets.append(bytes.count)
        bytes += EntryHeader(type: type, size: declared ?? data.count).encoded
        if type == .offsetDelta, let base { bytes += OffsetDistance.encode(offsets.last! - offsets[base]) }
        if type == .referenceDelta { bytes += [UInt8](repeating: 7, count: 20) }
        var compressed: [UInt8] = []
        let length = try data.withUnsafeBytes { try Deflater(level: .standard).compress($0, into: &compressed) }
        bytes += compressed.prefix(length)
        return offsets.count - 1
    }

    mutating func finish() { bytes += [UInt8](repeating: 0, count: 20) }
}

/// A delta's data: the base's size, the size it makes, then `instructions`.
private func delta(base: Int, making result: Int, _ instructions: [UInt8]) -> [UInt8] {
    Delta.header(base: base, result: result) + instructions
}

@Suite("A pack is checked as it arrives, from the sizes it declares")
struct IncomingPackCheckTests {
    static let limits = IncomingLimits(maximumObjectSize: 1_000_000, maximumFetchSize: 50_000_000)

    /// Feeds `pack` to a check in pieces of `piece` bytes; returns how many bytes it took
    /// before it threw, and what.
    private func feed(_ pack: [UInt8], in piece: Int, limits: IncomingLimits = limits) throws -> (fed: Int, error: (any Error)?) {
        let check = try IncomingPackCheck(limits: limits)
        var fed = 0
        do {
            while fed < pack.count {
                let end = min(pack.count, fed + piece)
                try pack[fed..<end].withUnsafeBytes { try check.consume($0) }
                fed = end
            }
            try check.finish()
            return (fed, nil)
        } catch {
            return (fed, error)
        }
    }

    @Test(arguments: [1, 3, 7, 4096, 1 << 30])
    func aPackGitWroteWithDeltasPasses(piece: Int) async throws {
        let folder = TemporaryFolder("incoming-pack")
        let repository = folder.child("r.git")
        try await git("init", "-q", "--bare", repository)
        var random = SplitMix(state: 24)
        var blob = random.text(40_000)
        var ids: [String] = []
        for round in 0..<12 {
            blob.replaceSubrange(round * 100..<round * 100 + 50, with: random.text(50))
            let file = folder.child("blob")
            try Data(blob).write(to: URL(fileURLWithPath: file))
            ids.append(try await git("--git-dir", repository, "hash-object", "-w", file).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let base = folder.child("p")
        try await git(["--git-dir", repository, "pack-objects", "-q", base], input: ids.joined(separator: "\n") + "\n")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasPrefix("p-") && $0.hasSuffix(".pack") })
        let pack = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder.child(name))))
        let verified = try await git("verify-pack", "-v", folder.child(name)).stdout
        #expect(verified.contains("chain length"), "git made no deltas: the test checks nothing about them")
        let (fed, error) = try feed(pack, in: piece)
        #expect(error == nil, "\(String(describing: error))")
        #expect(fed == pack.count)
    }

    @Test func aWholeObjectOverTheLimitIsRefusedFromItsHeader() throws {
        var pack = PackBytes(entries: 2)
        try pack.append(.blob, Array("small".utf8))
        try pack.append(.blob, [], declaring: 1 << 30)
        pack.finish()
        let (fed, error) = try feed(pack.bytes, in: 1)
        let exceeded = try #require(error as? LimitExceeded)
        #expect(exceeded.limit == .objectSize && exceeded.size == 1 << 30 && exceeded.maximum == 1_000_000)
        #expect(exceeded.object.contains("a blob (entry 1 of the fetched pack"))
        // Refused at the last byte of the entry's header, before any of its data.
        #expect(fed == pack.offsets[1] + EntryHeader(type: .blob, size: 1 << 30).encoded.count - 1)
    }

    @Test(arguments: [EntryHeader.EntryType.offsetDelta, .referenceDelta])
    func aDeltaMakingAnObjectOverTheLimitIsRefusedFromItsSizeHeader(type: EntryHeader.EntryType) throws {
        // A 64 KB base and a delta copying it 16,384 times: 1 GiB from a few hundred bytes.
        var pack = PackBytes(entries: 2)
        let base = try pack.append(.blob, [UInt8](repeating: 32, count: 65_536))
        try pack.append(type, delta(base: 65_536, making: 1 << 30, [UInt8](repeating: 0x80, count: 16_384)), base: base)
        pack.finish()
        #expect(pack.bytes.count < 1_024)
        let (_, error) = try feed(pack.bytes, in: 5)
        let exceeded = try #require(error as? LimitExceeded)
        #expect(exceeded.limit == .objectSize && exceeded.size == 1 << 30)
        #expect(exceeded.object.contains("the object a delta makes (entry 1"))
    }

    @Test func objectsWithinTheLimitButOverTheFetchBudgetAreRefused() throws {
        var pack = PackBytes(entries: 40)
        for _ in 0..<40 { try pack.append(.blob, [UInt8](repeating: 65, count: 900_000)) }
        pack.finish()
        let (_, error) = try feed(pack.bytes, in: 65_536, limits: IncomingLimits(maximumObjectSize: 1_000_000, maximumFetchSize: 10_000_000))
        let exceeded = try #require(error as? LimitExceeded)
        #expect(exceeded.limit == .fetchSize && exceeded.size > 10_000_000)
        #expect(exceeded.object.contains("entry 11"))
    }

    @Test func bytesPastTheFetchBudgetAreRefused() throws {
        var pack = PackBytes(entries: 1)
        try pack.append(.blob, Array("small".utf8))
        pack.finish()
        let (fed, error) = try feed(pack.bytes + [UInt8](repeating: 0, count: 10_000), in: 1_000, limits: IncomingLimits(maximumObjectSize: 100, maximumFetchSize: 5_000))
        #expect((error as? LimitExceeded)?.limit == .fetchSize)
        #expect(fed == 5_000)
    }

    /// libgit2's indexer keeps about 100 bytes for every object, and sizes its tables by the
    /// count the pack's header announces: a pack of many tiny objects is refused from that
    /// count, before any entry, whether it holds them or only claims to.
    @Test(arguments: [0, 100_001])
    func aPackOfMoreObjectsThanTheCountIsRefusedFromItsHeader(holding: Int) throws {
        var pack = PackBytes(entries: 100_001)
        for number in 0..<holding { try pack.append(.blob, Array("\(number)".utf8)) }
        pack.finish()
        let (fed, error) = try feed(pack.bytes, in: 4_096, limits: .standard)
        let exceeded = try #require(error as? LimitExceeded)
        #expect(exceeded.limit == .objectCount && exceeded.size == 100_001 && exceeded.maximum == 100_000)
        #expect(exceeded.object.contains("the fetched pack's header"))
        #expect(fed == 0)
        // As many as the count allows pass.
        var within = PackBytes(entries: 3)
        for number in 0..<3 { try within.append(.blob, Array("\(number)".utf8)) }
        within.finish()
        let limits = IncomingLimits(maximumObjectSize: 100, maximumFetchSize: 10_000, maximumObjectCount: 3)
        #expect(try feed(within.bytes, in: 7, limits: limits).error == nil)
    }

    @Test func anEntryHoldingMoreThanItsHeaderSaysIsRefused() throws {
        var pack = PackBytes(entries: 1)
        try pack.append(.blob, [UInt8](repeating: 65, count: 300_000), declaring: 1_000)
        pack.finish()
        let (fed, error) = try feed(pack.bytes, in: 1 << 20)
        #expect((error as? PackError)?.code == .damaged)
        #expect(fed == 0)
    }

    @Test func dataThatIsNotAPackOrEndsEarlyIsRefused() throws {
        #expect(try feed(Array("HTTP/1.1 200 OK\r\n".utf8), in: 4).error is PackError)
        var unknownType = PackBytes(entries: 1)
        unknownType.finish()
        #expect(try feed(unknownType.bytes.prefix(12) + [0x50, 0x00], in: 1).error is PackError)
        var short = PackBytes(entries: 3)
        try short.append(.blob, Array("one".utf8))
        short.finish()
        #expect(try feed(short.bytes, in: 2).error is PackError)
        var delta = PackBytes(entries: 2)
        let base = try delta.append(.blob, Array("base".utf8))
        try delta.append(.offsetDelta, [0x84], base: base)  // its sizes cut short
        delta.finish()
        #expect(try feed(delta.bytes, in: 1).error is PackError)
    }
}
