import ForkStoreGit
import Testing

@Suite("pkt-lines at their limits")
struct PacketLineTests {
    @Test func aPacketOfTheLongestLengthIsWrittenAndReadAndOneByteMoreIsNot() throws {
        let longest = [UInt8](repeating: 0x61, count: PacketLine.maximumLength - 4)
        let packet = try #require(PacketLine.encode(longest))
        #expect(packet.prefix(4) == Array("fff0".utf8)[...] && packet.count == 65_520)
        #expect(PacketLine.encode(longest + [0x61]) == nil)
        var buffer = packet + Array("0000".utf8) + Array("0009abc".utf8)
        let packets = try PacketLine.take(from: &buffer)
        #expect(packets.count == 2 && packets[0] == longest && packets[1] == nil)
        #expect(buffer == Array("0009abc".utf8), "an incomplete packet waits for the rest")
        // A length one past the limit, 1 to 3 (shorter than its own digits), or not hex.
        for bad in ["fff1", "0001", "0003", "+fff", "00g0", "-001"] {
            var buffer = Array((bad + String(repeating: "x", count: 20)).utf8)
            #expect(throws: GitError.self, "\(bad)") { try PacketLine.take(from: &buffer) }
        }
    }

    @Test func aReportSplitAcrossReadsAndBandsIsReadWhole() throws {
        // report-status inside side-band 64k: band 1 carries pkt-lines of its own, band 2 progress.
        let inner = PacketLine.encode("unpack ok\n")! + PacketLine.encode("ok refs/heads/main\n")! + Array("0000".utf8)
        let stream = PacketLine.encode([2] + Array("Resolving deltas\n".utf8))! + PacketLine.encode([1] + inner)! + Array("0000".utf8)
        var reads = stride(from: 0, to: stream.count, by: 3).map { Array(stream[$0..<min(stream.count, $0 + 3)]) }
        reads.reverse()
        var messages: [String] = []
        let report = try ReceivePackReport(reading: { reads.popLast() ?? [] }, on: "refs/heads/main") { messages.append($0) }
        #expect(try report.outcome == .accepted)
        #expect(messages == ["Resolving deltas"])
    }
}
