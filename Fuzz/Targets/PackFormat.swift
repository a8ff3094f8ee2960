import ForkStoreGit
import Foundation

extension FuzzTarget {
    /// A pack entry's header and an offset delta's distance: whatever decodes re-encodes to
    /// something that decodes the same (git's decoder also takes longer, padded forms), and
    /// a whole object's zlib data after the header inflates to exactly its size or is refused.
    static let packEntry = FuzzTarget(name: "pack-entry") { bytes in
        bytes.withUnsafeBytes { raw in
            if let (header, length) = try? EntryHeader.decode(raw) {
                check(length <= raw.count, "header of \(length) bytes in \(raw.count)")
                let again = header.encoded.withUnsafeBytes { try? EntryHeader.decode($0) }
                check(again?.0 == header && again?.length == header.encoded.count, "header \(header) does not read back")
                if header.size <= 1 << 20 {
                    let rest = UnsafeRawBufferPointer(rebasing: raw[length...])
                    if let (inflated, consumed) = try? Inflater().inflate(rest, size: header.size) {
                        check(inflated.count == header.size && consumed <= rest.count, "inflated \(inflated.count) of \(header.size)")
                    }
                }
            }
            if let (distance, length) = try? OffsetDistance.decode(raw) {
                let encoded = OffsetDistance.encode(distance)
                check(encoded.count == length && encoded.elementsEqual(raw.prefix(length)), "distance \(distance) reads back otherwise")
            }
        }
    }

    /// A pack index: what opens answers every question inside its file: entries in pack
    /// order, and each id found again at its offset.
    static let packIndex = FuzzTarget(name: "pack-index") { bytes in
        guard let index = try? PackIndex(data: Data(bytes), path: "fuzz.idx") else { return }
        guard let entries = try? index.entriesInPackOrder() else { return }
        check(entries.count == index.count, "\(entries.count) entries of \(index.count)")
        for entry in entries.prefix(64) {
            let found = index.offset(of: entry.id)
            // Ids may repeat in a hostile index; the one found is one of them.
            check(found != nil, "\(entry.id) not found again")
        }
    }

    /// A commit header's first two lines, as a lineage walk reads them from a pack
    /// (``PackedFirstParents``): an answer only for the lines git writes, checked against the
    /// lines split apart here: a root's second line is `author …`, a parent is the 40 digits
    /// after `parent `.
    static let commitHeader = FuzzTarget(name: "commit-header") { bytes in
        let header = Array(bytes.prefix(PackedFirstParents.headerLength))
        guard let answer = PackedFirstParents.parse(header) else { return }
        // Compared as bytes, as git writes them: as Strings, `author ` before a combining mark
        // is no prefix of the line (the space and the mark make one character).
        let lines = header.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        check(lines.count >= 2 && lines[0].starts(with: "tree ".utf8) && lines[0].count == 45, "\(shown(bytes)) has no tree line, yet read \(answer)")
        switch answer {
        case .root: check(lines[1].starts(with: "author ".utf8), "\(shown(bytes)) read as a root")
        case .parent(let parent):
            check(String(decoding: lines[1], as: UTF8.self).lowercased() == "parent " + parent.hex, "\(shown(bytes)) read as a child of \(parent)")
        }
    }

    /// Delta application: the first byte says how much of the rest is the base. What applies
    /// has exactly the size its header gives; and a delta our encoder makes from the base to
    /// that result rebuilds it.
    static let delta = FuzzTarget(name: "delta") { bytes in
        guard let first = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        let split = min(rest.count, Int(first) * 4)
        let base = Array(rest[..<split]), delta = Array(rest[split...])
        guard let result = try? delta.withUnsafeBytes({ d in try base.withUnsafeBytes { try Delta.apply(d, to: $0, maximumSize: 1 << 20) } }) else { return }
        check(result.count <= 1 << 20, "a result past the limit")
        if let ours = base.withUnsafeBytes({ b in result.withUnsafeBytes { Delta.bytes(from: b, to: $0) } }) {
            let rebuilt = try? ours.withUnsafeBytes { d in try base.withUnsafeBytes { try Delta.apply(d, to: $0) } }
            check(rebuilt == result, "our delta does not rebuild what another made")
        }
    }

    /// pkt-lines and a receive-pack report, read in pieces of the sizes the first bytes say:
    /// the packets split off are whole, and what is left is shorter than a packet.
    static let wire = FuzzTarget(name: "wire") { bytes in
        var buffer = bytes
        if let packets = try? PacketLine.take(from: &buffer) {
            check(packets.allSatisfy { ($0?.count ?? 0) <= PacketLine.maximumLength - 4 }, "a packet past the limit")
            check(buffer.count < PacketLine.maximumLength, "\(buffer.count) bytes left over")
        }
        var pieces = stride(from: 0, to: bytes.count, by: 7).map { Array(bytes[$0..<min(bytes.count, $0 + 7)]) }
        pieces.reverse()
        var messages = 0
        if let report = try? ReceivePackReport(reading: { pieces.popLast() ?? [] }, on: "refs/heads/main", messages: { _ in messages += 1 }) {
            _ = try? report.outcome
        }
    }
}
