import Foundation

/// Rolling many packs into one, as `git repack --geometric=2` does, with the pack format's
/// promise kept: nothing is removed before its replacement has been read back.
package enum RollUp {
    /// How many packs an object database may hold before small ones are rolled into one.
    package static let packsBefore = 16

    /// The most objects a roll-up writes into one pack (2^17). A roll-up holds about 80 bytes
    /// per object it copies, so this bounds its memory (about 10 MB) however large the store
    /// grows: a store of more objects holds several packs of about this size, as
    /// `git repack --max-pack-size` leaves them, and reads through all of them. (With 2^18, a
    /// 1 GB import of small records peaked at 106 MB; with 2^17, at 100 MB.)
    package static let objectsPerPack = 1 << 17

    /// Whether a pack takes part in roll-ups: one marked kept, or already holding `limit`
    /// objects, is left as it is.
    package static func rollsUp(_ pack: PackFile, limit: Int = objectsPerPack) -> Bool {
        !pack.isKept && pack.objectCount < limit
    }

    /// The packs to roll into one so that, smallest first, each remaining pack holds at least
    /// twice as many objects as all smaller ones together: small packs (every fetch and push
    /// adds one) merge often and cheaply, large ones rarely. Only packs that roll up are
    /// candidates, and the chosen ones hold at most `limit` objects together.
    package static func packsToRollUp(_ packs: [PackFile], limit: Int = objectsPerPack) -> [PackFile] {
        let candidates = packs.filter { rollsUp($0, limit: limit) }
        var total = 0, split = 0
        for (index, pack) in candidates.enumerated() {
            guard total + pack.objectCount <= limit else { break }
            if index > 0, pack.objectCount < 2 * total { split = index + 1 }
            total += pack.objectCount
        }
        return split >= 2 ? Array(candidates.prefix(split)) : []
    }

    /// The packs that roll up, in groups of at most `limit` objects, smallest first: what
    /// `pack()` rolls into as few packs as that bound allows.
    package static func groupsToRollUp(_ packs: [PackFile], limit: Int = objectsPerPack) -> [[PackFile]] {
        var groups: [[PackFile]] = [[]]
        var total = 0
        for pack in packs.filter({ rollsUp($0, limit: limit) }) {
            if total + pack.objectCount > limit, !groups[groups.count - 1].isEmpty {
                groups.append([])
                total = 0
            }
            groups[groups.count - 1].append(pack)
            total += pack.objectCount
        }
        return groups.filter { $0.count >= 2 }
    }

    /// Writes the objects of `packs` into one new pack in `folder`, reads it back, and only
    /// then removes them; returns how many objects the new pack holds.
    ///
    /// The packs' entries are copied as they are, compressed data and deltas included, so no
    /// object is inflated and searched for deltas again: only the distances of offset deltas
    /// are rewritten, and an object found in an earlier pack is left out. Each entry is checked
    /// against the CRC-32 its index holds, so a damaged pack is refused, not copied. Then the
    /// new pack is read back whole (``PackReader/verify()``): every entry inflates, every delta
    /// resolves, every object hashes to the id its index gives. If that fails, the new pack is
    /// removed, the old ones stay, and the failure is thrown. Readers keep working throughout:
    /// every object is in a verified pack before an old pack goes, and a killed roll-up leaves
    /// only temporary files beside the packs it did not remove.
    ///
    /// - Parameters:
    ///   - externalBase: reads an object of the repository that a reference delta of these
    ///     packs is made against, when the packs do not hold it.
    ///   - beforeReadBack: for tests: called with the new pack's path before it is read back.
    @discardableResult
    package static func rollUp(
        _ packs: [PackFile], in folder: String, fsync: Bool,
        externalBase: @escaping (ObjectID) -> PackReader.Object? = { _ in nil },
        beforeReadBack: ((String) -> Void)? = nil
    ) throws(PackError) -> Int {
        guard packs.count >= 2 else { return 0 }
        var indexes: [PackIndex] = []
        var unique = Set<ObjectID>()
        for pack in packs {
            let index = try PackIndex(path: pack.base + ".idx")
            indexes.append(index)
            for number in 0..<index.count { unique.insert(index.id(at: number)) }
        }
        // A pack of identical objects in identical order has the same name: one already there
        // (a source, or any other) is kept as it is, and never removed here.
        let existing = Set(PackFile.packs(in: folder).map(\.base))
        FreedMemory.giveBack()
        let writer = try PackWriter(directory: folder, objectCount: unique.count, fsync: fsync)
        unique = []
        // Where each object went: needed only while copying.
        var copied: [PackWriter.CopiedPack] = []
        for (pack, index) in zip(packs, indexes) {
            copied.append(try writer.copy(pack: pack.base + ".pack", index: index, after: copied))
        }
        copied = []
        return try finish(writer, replacing: packs, in: folder, existing: existing, externalBase: externalBase, beforeReadBack: beforeReadBack)
    }

    /// Writes only the objects of `kept`'s packs that it keeps into one new pack in `folder`,
    /// reads it back, and only then removes those packs: what freeing unreachable objects
    /// does, as ``rollUp(_:in:fsync:externalBase:beforeReadBack:)`` does for all of them.
    /// Kept entries are copied as they are, but for the deltas whose base goes
    /// (``KeptObjects/markDeltasWithoutBases()``), written whole as `readWhole` reads them.
    /// With nothing kept, no pack is written and the packs are removed. Returns how many
    /// objects the new pack holds.
    @discardableResult
    package static func rewrite(
        keeping kept: KeptObjects, in folder: String, fsync: Bool,
        readWhole: @escaping (ObjectID) -> PackReader.Object?,
        externalBase: @escaping (ObjectID) -> PackReader.Object? = { _ in nil }
    ) throws(PackError) -> Int {
        let packs = kept.packs
        guard !packs.isEmpty else { return 0 }
        let count = kept.count
        guard count > 0 else {
            for pack in packs { remove(pack) }
            return 0
        }
        let existing = Set(PackFile.packs(in: folder).map(\.base))
        let writer = try PackWriter(directory: folder, objectCount: count, fsync: fsync)
        var copied: [PackWriter.CopiedPack] = []
        for (number, pack) in packs.enumerated() {
            copied.append(try writer.copy(
                pack: pack.base + ".pack", index: kept.indexes[number], after: copied, keeping: kept.flags[number],
                whole: kept.whole[number], readWhole: readWhole))
        }
        copied = []
        // A reference delta's base outside the new pack must outlive the packs that go.
        let outside: (ObjectID) -> PackReader.Object? = { id in kept.holds(id) ? nil : externalBase(id) }
        return try finish(writer, replacing: packs, in: folder, existing: existing, externalBase: outside, beforeReadBack: nil)
    }

    /// Finishes the new pack, reads it back whole, then removes `packs` (but never the new
    /// pack, nor one that was there before); on failure the new pack goes and they stay.
    private static func finish(
        _ writer: PackWriter, replacing packs: [PackFile], in folder: String, existing: Set<String>,
        externalBase: @escaping (ObjectID) -> PackReader.Object?, beforeReadBack: ((String) -> Void)?
    ) throws(PackError) -> Int {
        let count = writer.entryCount
        let base = (folder.hasSuffix("/") ? folder : folder + "/") + "pack-" + (try writer.finish())
        FreedMemory.giveBack()
        defer { FreedMemory.giveBack() }
        do throws(PackError) {
            beforeReadBack?(base + ".pack")
            let index = try PackIndex(path: base + ".idx")
            guard index.count == count else { throw PackError(.damaged, path: base + ".idx", "it lists \(index.count) objects, not \(count)") }
            try PackReader(pack: base + ".pack", index: index, externalBase: externalBase).verify()
        } catch {
            if !existing.contains(base) {
                // The index first: without it, no reader uses the pack.
                unlink(base + ".idx")
                unlink(base + ".pack")
            }
            throw PackError(error.code, path: error.path, "the new pack did not read back, the old packs are kept: \(error.message)")
        }
        for pack in packs where pack.base != base { remove(pack) }
        return count
    }

    private static func remove(_ pack: PackFile) {
        // The index first: without it, no reader uses the pack.
        for suffix in [".idx", ".pack", ".rev", ".bitmap"] { unlink(pack.base + suffix) }
    }
}
