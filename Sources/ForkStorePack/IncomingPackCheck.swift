/// Checks a pack as it arrives, before anything else reads it: the sizes every entry declares
/// are held to ``IncomingLimits`` before the entry's data is read, so what a pack costs to take
/// in is known from its headers, however small it is on the wire.
///
/// Each entry's header gives the size of its data once inflated: a whole object larger than
/// the limit is refused there. A delta's data begins with the size of the object it makes: it
/// is inflated through a small window (``StreamingInflater``) as it arrives, and that size is
/// refused as soon as it is read. Every entry is inflated to its end, so that the next one is
/// found, and must hold exactly what its header says. The number of entries the pack's header
/// announces is held to the object count first. Every object counts toward the fetch's
/// budget, as does every byte received. Nothing is kept but a few bytes of the entry at hand:
/// the check costs the same memory whatever the pack holds.
///
/// It checks sizes and the framing that finds them; the indexer that reads the pack after it
/// checks the rest (ids, checksums, delta bases).
package final class IncomingPackCheck {
    private var budget: IncomingBudget
    private let inflater: StreamingInflater
    private enum Stage { case packHeader, entryHeader, entryData, trailer, done }
    private var stage = Stage.packHeader
    /// The bytes of the header being read (the pack's, an entry's, or the trailer).
    private var pending: [UInt8] = []
    /// The position in the pack of the next byte.
    private var offset = 0
    private var entries = 0
    /// The entry being read: its number, where it starts, its header, what it has made so far,
    /// and for a delta the first bytes of its data, until the size of its result is read.
    private var entry = (number: -1, start: 0, header: EntryHeader(type: .blob, size: 0), made: 0)
    private var deltaStart: [UInt8]?
    /// Hears where each entry lies once it was read to its end (``ArrivingPack``).
    package var entryEnded: ((Range<Int>) -> Void)?

    package init(limits: IncomingLimits) throws(PackError) {
        budget = IncomingBudget(limits)
        inflater = try StreamingInflater()
    }

    /// Checks the next bytes of the pack. Throws ``LimitExceeded`` when the pack would bring
    /// more than a limit allows, ``PackError`` when it is not a pack.
    package func consume(_ bytes: UnsafeRawBufferPointer) throws {
        try budget.receive(bytes.count, at: "byte \(offset) of the fetched pack")
        var cursor = 0
        while cursor < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[cursor...])
            let taken: Int
            switch stage {
            case .packHeader:
                taken = collect(rest, upTo: 12)
                if pending.count == 12 { try readPackHeader() }
            case .entryHeader:
                taken = 1
                pending.append(rest[0])
                try readEntryHeaderIfComplete()
            case .entryData:
                taken = try readEntryData(rest)
                guard taken > 0 || stage != .entryData else { throw PackError.damaged(nil, "zlib took none of the fetched pack's data") }
            case .trailer:
                taken = collect(rest, upTo: 20)
                if pending.count == 20 { stage = .done }
            case .done:
                taken = rest.count  // the indexer refuses what follows the trailer
            }
            cursor += taken
            offset += taken
        }
    }

    /// Checks that the pack ended where its header and entries say.
    package func finish() throws(PackError) {
        guard stage == .done else { throw .damaged(nil, "the fetched pack ends before its \(entries) entries and checksum") }
    }

    private func collect(_ bytes: UnsafeRawBufferPointer, upTo length: Int) -> Int {
        let taken = min(length - pending.count, bytes.count)
        pending.append(contentsOf: bytes[..<taken])
        return taken
    }

    /// The pack's header: its signature, version and number of entries, which is held to the
    /// object count before the indexer reads it (and sizes its tables by it).
    private func readPackHeader() throws {
        guard pending.starts(with: PackWriter.signature.prefix(4)), pending[4..<7].allSatisfy({ $0 == 0 }), [2, 3].contains(pending[7])
        else { throw PackError.damaged(nil, "the fetched data is not a version-2 pack") }
        entries = pending[8..<12].reduce(0) { $0 << 8 | Int($1) }
        try budget.expect(objects: entries, "as the fetched pack's header says")
        pending = []
        stage = entries == 0 ? .trailer : .entryHeader
    }

    /// An entry's header is its type and size (bytes until one without bit 7), then for an
    /// offset delta the distance back to its base (the same), for a reference delta its base's
    /// id (20 bytes).
    private func readEntryHeaderIfComplete() throws {
        guard let sizeEnd = pending.firstIndex(where: { $0 & 0x80 == 0 }) else {
            guard pending.count < EntryHeader.maximumLength else { throw PackError.damaged(nil, "an entry's size is too large") }
            return
        }
        let (header, length) = try pending.withUnsafeBytes { (bytes) throws(PackError) in
            try EntryHeader.decode(UnsafeRawBufferPointer(rebasing: bytes[...sizeEnd]))
        }
        switch header.type {
        case .offsetDelta:
            guard pending[length...].contains(where: { $0 & 0x80 == 0 }) else {
                guard pending.count - length < EntryHeader.maximumLength else { throw PackError.damaged(nil, "a delta's base distance is too large") }
                return
            }
        case .referenceDelta:
            guard pending.count == length + 20 else { return }
        default:
            break
        }
        let start = offset + 1 - pending.count
        entry = (entry.number + 1, start, header, 0)
        pending = []
        if header.type.kind != nil {
            try budget.admit(describe(kind: header.type), size: header.size)
            deltaStart = nil
        } else {
            // A delta is never larger than the object it makes (writers keep the object whole
            // when it would be): its own size is held to the object limit too.
            guard header.size <= budget.limits.maximumObjectSize else {
                throw LimitExceeded(.objectSize, maximum: budget.limits.maximumObjectSize, size: header.size, object: describe(kind: header.type))
            }
            deltaStart = []
        }
        inflater.reset()
        stage = .entryData
    }

    private func readEntryData(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        let (consumed, finished) = try inflater.feed(bytes) { piece in
            entry.made += piece.count
            guard entry.made <= entry.header.size else {
                throw PackError.damaged(nil, "entry \(entry.number) of the fetched pack holds more than the \(entry.header.size) bytes its header says")
            }
            if let start = deltaStart { try readDeltaResultSize(start + piece.prefix(20)) }
        }
        if finished {
            guard entry.made == entry.header.size, deltaStart == nil else {
                throw PackError.damaged(nil, "entry \(entry.number) of the fetched pack holds \(entry.made) bytes, not the \(entry.header.size) its header says")
            }
            entries -= 1
            stage = entries == 0 ? .trailer : .entryHeader
            entryEnded?(entry.start..<offset + consumed)
        }
        return consumed
    }

    /// A delta's data begins with the size of its base, then the size of what it makes (7 bits
    /// a byte, least significant first, each byte but the last with bit 7 set).
    private func readDeltaResultSize(_ start: [UInt8]) throws {
        var sizes: [Int] = [], value = 0, shift = 0
        for byte in start where sizes.count < 2 {
            guard shift <= 56 else { throw PackError.damaged(nil, "a delta's size is too large") }
            value |= Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 {
                sizes.append(value)
                (value, shift) = (0, 0)
            }
        }
        guard sizes.count == 2 else {
            deltaStart = start
            return
        }
        deltaStart = nil
        try budget.admit(describe(kind: entry.header.type, making: sizes[1]), size: sizes[1])
    }

    private func describe(kind: EntryHeader.EntryType, making result: Int? = nil) -> String {
        let what =
            switch kind {
            case .commit: "a commit"
            case .tree: "a tree"
            case .blob: "a blob"
            case .tag: "a tag"
            case .offsetDelta, .referenceDelta: result == nil ? "a delta" : "the object a delta makes"
            }
        return "\(what) (entry \(entry.number) of the fetched pack, at byte \(entry.start))"
    }
}
