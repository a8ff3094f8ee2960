internal import Crypto
import Foundation

/// A git object id: the 20 bytes of a SHA-1, in the order git writes them.
///
/// Pure Swift, so the pack format can be read and written without libgit2; ForkStoreGit
/// converts it to and from libgit2's `git_oid`, which has the same bytes.
package struct ObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The 20 bytes.
    package typealias Bytes = (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
    )

    package var bytes: Bytes

    package init(bytes: Bytes) { self.bytes = bytes }

    /// Twenty zero bytes: git's "no object" (the old id of a ref being created).
    package static let zero = ObjectID(bytes: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// The id whose bytes are the first 20 of `buffer`; nil when it is shorter.
    package init?<Buffer: Collection<UInt8>>(copying buffer: Buffer) {
        guard buffer.count >= 20 else { return nil }
        var bytes: Bytes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { target in
            for (index, byte) in zip(0..<20, buffer) { target[index] = byte }
        }
        self.bytes = bytes
    }

    /// The id whose bytes are the first 20 of `buffer`; nil when it is shorter. Not generic:
    /// from other modules, the generic one is not specialized, and each call looked its types
    /// up at run time.
    package init?(copying buffer: UnsafeRawBufferPointer) {
        guard buffer.count >= 20 else { return nil }
        self.bytes = buffer.loadUnaligned(as: Bytes.self)
    }

    /// Parses 40 hexadecimal digits; returns nil for anything else.
    package init?(hex: String) {
        var hex = hex
        guard let parsed = hex.withUTF8({ ObjectID(hexDigits: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = parsed
    }

    /// Parses 40 hexadecimal digits held as bytes (a database's text column, say); returns nil
    /// for anything else.
    package init?(hexDigits digits: UnsafeRawBufferPointer) {
        // Without branching on each digit's kind: a listing through the index parses one id
        // per record before any is decoded.
        guard digits.count == 40 else { return nil }
        var bytes: Bytes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var invalid: UInt8 = 0  // a value above 15 or-ed in: some digit was not one
        withUnsafeMutableBytes(of: &bytes) { target in
            for index in 0..<20 {
                let high = Self.value(of: digits[2 * index]), low = Self.value(of: digits[2 * index + 1])
                invalid |= high | low
                target[index] = high << 4 | low & 0x0F
            }
        }
        guard invalid & 0xF0 == 0 else { return nil }
        self.init(bytes: bytes)
    }

    /// A hexadecimal digit's value, or 0xFF for any other byte.
    private static func value(of digit: UInt8) -> UInt8 {
        let decimal = digit &- UInt8(ascii: "0")
        if decimal < 10 { return decimal }
        let letter = (digit | 0x20) &- UInt8(ascii: "a")  // either case
        return letter < 6 ? letter + 10 : 0xFF
    }

    /// 40 lowercase hexadecimal digits.
    package var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: bytes) { raw in
            String(unsafeUninitializedCapacity: 40) { (target: UnsafeMutableBufferPointer<UInt8>) -> Int in
                for (index, byte) in raw.enumerated() {
                    target[2 * index] = digits[Int(byte >> 4)]
                    target[2 * index + 1] = digits[Int(byte & 0x0F)]
                }
                return 40
            }
        }
    }

    package var description: String { hex }

    /// The first byte of the id (the fan-out key of a pack index).
    package var firstByte: UInt8 { bytes.0 }

    package static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        compare(lhs, rhs) == 0
    }

    package static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// memcmp of the 20 bytes: ids are compared in every set, dictionary and sort of a walk.
    private static func compare(_ lhs: ObjectID, _ rhs: ObjectID) -> Int32 {
        withUnsafeBytes(of: lhs.bytes) { l in
            withUnsafeBytes(of: rhs.bytes) { r in
                guard let l = l.baseAddress, let r = r.baseAddress else { return 0 }  // 20 bytes: never nil
                return memcmp(l, r, 20)
            }
        }
    }

    package func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: bytes) { hasher.combine(bytes: $0) }
    }
}

extension ObjectID {
    /// The id of the empty tree, the same in every repository.
    package static let emptyTreeHex = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

    /// The id git would give `bytes` stored as a blob (`git hash-object --stdin`), without
    /// writing anything.
    package static func blobHash(of bytes: [UInt8]) -> ObjectID {
        bytes.withUnsafeBytes { hash(of: $0, kind: .blob) }
    }

    /// The id of an object of `kind` holding `bytes`: the SHA-1 of git's header (`blob 12\0`)
    /// and the bytes. Computed with the hardware's SHA-1 (swift-crypto) for objects written
    /// here, rather than libgit2's slower collision-detecting one, which stays on for what is
    /// read from disk or a remote.
    package static func hash(of bytes: UnsafeRawBufferPointer, kind: ObjectKind) -> ObjectID {
        var hasher = Insecure.SHA1()
        // The header and digest without interpolation or an array copy: a listing hashes
        // every record's id to check its path.
        var header = Array(kind.name.utf8)
        header.append(UInt8(ascii: " "))
        header += String(bytes.count).utf8
        header.append(0)
        hasher.update(data: header)
        hasher.update(bufferPointer: bytes)
        return hasher.finalize().withUnsafeBytes { ObjectID(copying: $0) } ?? .zero  // a SHA-1 is always 20 bytes
    }
}
