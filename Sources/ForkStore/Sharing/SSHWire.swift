/// The ssh wire encoding (RFC 4251): big-endian `uint32`s and length-prefixed strings, as used
/// by OpenSSH keys and signatures.
struct SSHWire {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset >= bytes.count }

    /// Reads `count` raw bytes.
    mutating func read(_ count: Int) throws(SSHFormatError) -> [UInt8] {
        guard count >= 0, bytes.count - offset >= count else { throw SSHFormatError("it ends too early") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func readUInt32() throws(SSHFormatError) -> UInt32 {
        try read(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func readString() throws(SSHFormatError) -> [UInt8] {
        try read(Int(readUInt32()))
    }

    static func uint32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func string(_ value: [UInt8]) -> [UInt8] {
        uint32(UInt32(value.count)) + value
    }

    static func string(_ value: String) -> [UInt8] {
        string(Array(value.utf8))
    }
}

/// An ssh key or signature that could not be read.
struct SSHFormatError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
