import ForkStoreGit

extension FuzzTarget {
    /// A tree object's entries (``TreeEntry/entries(parsing:of:)``, how a fetch's walk reads
    /// every tree it checks): parsed exactly when a second reading of a tree's framing (octal
    /// digits of at most 32 bits, a space, a name up to a NUL, 20 bytes) takes the bytes
    /// whole, with the same modes, names and ids; written again, an entry whose mode has no
    /// leading zero and whose name is UTF-8 gives back its own bytes.
    static let treeEntries = FuzzTarget(name: "tree-entries") { bytes in
        let parsed = bytes.withUnsafeBytes { try? TreeEntry.entries(parsing: $0, of: .zero) }
        // The second reading: (mode, name bytes, id bytes, the entry's bytes) for each entry.
        var expected: [(mode: UInt32, name: ArraySlice<UInt8>, id: ArraySlice<UInt8>, whole: ArraySlice<UInt8>)]? = []
        var start = 0
        while start < bytes.count {
            var cursor = start, mode: UInt64 = 0
            while cursor < bytes.count, (0x30...0x37).contains(bytes[cursor]), mode <= UInt64(UInt32.max) {
                mode = mode << 3 | UInt64(bytes[cursor] - 0x30)
                cursor += 1
            }
            guard cursor > start, cursor < bytes.count, bytes[cursor] == 0x20, mode <= UInt64(UInt32.max),
                let nul = bytes[(cursor + 1)...].firstIndex(of: 0), nul + 21 <= bytes.count
            else {
                expected = nil
                break
            }
            expected?.append((UInt32(mode), bytes[(cursor + 1)..<nul], bytes[(nul + 1)..<(nul + 21)], bytes[start..<(nul + 21)]))
            start = nul + 21
        }
        guard let parsed, let expected else {
            return check(parsed == nil && expected == nil, "parsed: \(parsed != nil), by the second reading: \(expected != nil)")
        }
        check(parsed.count == expected.count, "\(parsed.count) entries, \(expected.count) by the second reading")
        for (entry, git) in zip(parsed, expected) {
            check(entry.mode == git.mode, "mode \(entry.mode), \(git.mode) by the second reading")
            check(withUnsafeBytes(of: entry.id.bytes) { Array($0) } == Array(git.id), "id \(entry.id.hex) read otherwise")
            check(entry.name == String(decoding: git.name, as: UTF8.self), "name \(entry.name) read otherwise")
            guard String(validating: git.name, as: UTF8.self) != nil else { continue }
            let octal = String(git.mode, radix: 8)
            guard git.whole.first != 0x30 else { continue }
            let written = Array(octal.utf8) + [0x20] + Array(entry.name.utf8) + [0] + Array(git.id)
            check(written == Array(git.whole), "entry \(entry.name) written back otherwise")
        }
    }
}
