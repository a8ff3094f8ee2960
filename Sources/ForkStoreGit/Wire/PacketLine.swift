import Foundation

/// git's pkt-line framing: four hex digits giving the packet's length, those four included,
/// then the payload; `0000` is a flush packet. A packet is at most 65,520 bytes long.
package enum PacketLine {
    /// The longest packet git sends or accepts, length digits included.
    package static let maximumLength = 65_520

    /// One packet carrying `payload`; nil when it would be longer than ``maximumLength``.
    package static func encode<Payload: Collection<UInt8>>(_ payload: Payload) -> [UInt8]? {
        guard payload.count + 4 <= maximumLength else { return nil }
        return Array(String(format: "%04x", payload.count + 4).utf8) + payload
    }

    /// One packet carrying `text`; nil when it would be too long.
    package static func encode(_ text: String) -> [UInt8]? {
        encode(Array(text.utf8))
    }

    /// Splits complete packets off the front of `buffer`: each packet's payload, or nil for a
    /// flush packet (`0000`). What is left is an incomplete packet. Refuses a length that is not
    /// four hex digits, is 1–3 (no room for the digits themselves) or is over ``maximumLength``.
    package static func take(from buffer: inout [UInt8]) throws(GitError) -> [[UInt8]?] {
        var packets: [[UInt8]?] = []
        var start = 0
        while buffer.count - start >= 4 {
            guard let length = Self.length(buffer[start..<start + 4]), length == 0 || (4...maximumLength).contains(length) else {
                throw GitError(
                    function: "push", rawCode: -1, errorClass: GitError.networkClass, message: "the remote sent a packet with no valid length")
            }
            if length == 0 {
                packets.append(nil)
                start += 4
                continue
            }
            guard buffer.count - start >= length else { break }
            packets.append(Array(buffer[start + 4..<start + length]))
            start += length
        }
        buffer.removeFirst(start)
        return packets
    }

    /// Four hexadecimal digits, as a number (`Int(_:radix:)` would also take a sign).
    private static func length(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | Int(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | Int(digit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | Int(digit - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        return value
    }
}
