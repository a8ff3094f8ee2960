import Foundation

/// What `git-receive-pack` reported (`report-status`) on one ref, read through side-band 64k:
/// band 1 carries the report's own packets, band 2 the server's progress messages, band 3 a
/// fatal error. Only the unpack line and the ref's own line are kept, so a server that sends
/// endless lines costs no memory.
package struct ReceivePackReport {
    let ref: String
    var unpack: String?
    /// nil until the server reports on the ref; then nil inside when it was updated, or the
    /// reason it was not.
    var status: String??

    /// Reads the report on `ref` from `read` (what the remote sent next; empty at its end),
    /// handing each progress message to `messages`.
    package init(reading read: () throws(GitError) -> [UInt8], on ref: String, messages: (String) -> Void) throws(GitError) {
        self.ref = ref
        var outer: [UInt8] = [], inner: [UInt8] = []
        var finished = false
        while !finished {
            let received = try read()
            if received.isEmpty { break }
            outer += received
            for packet in try PacketLine.take(from: &outer) {
                guard let packet, let band = packet.first else {
                    finished = true
                    break
                }
                func text() -> String { String(decoding: packet.dropFirst().prefix(1_024), as: UTF8.self).trimmingTrailingNewlines() }
                switch band {
                case 1:
                    inner += packet.dropFirst()
                    for line in try PacketLine.take(from: &inner) {
                        guard let line else { continue }
                        record(String(decoding: line.prefix(1_024), as: UTF8.self).trimmingTrailingNewlines())
                    }
                case 2: messages(text())
                case 3: throw Self.failure("the remote said: \(text())")
                default:
                    // A server that did not take up side-band sends its report as plain packets.
                    record(String(decoding: packet.prefix(1_024), as: UTF8.self).trimmingTrailingNewlines())
                }
            }
        }
        guard unpack != nil else { throw Self.failure("the remote ended the push without a report (early EOF)") }
    }

    private mutating func record(_ line: String) {
        if line.hasPrefix("unpack ") {
            unpack = String(line.dropFirst(7))
        } else if line == "ok " + ref {
            status = .some(nil)
        } else if line.hasPrefix("ng " + ref + " ") {
            status = String(line.dropFirst(4 + ref.count))
        }
    }

    /// What the push came to; throws when the remote could not unpack the pack.
    package var outcome: PushOutcome {
        get throws(GitError) {
            if let unpack, unpack != "ok" { throw Self.failure("the remote could not unpack the pack (index-pack): \(unpack)") }
            switch status {
            case .some(.none): return .accepted
            case .some(.some(let reason)): return .fromServer(reason)
            case .none: return .rejected("the remote did not report on \(ref)")
            }
        }
    }

    static func failure(_ reason: String) -> GitError {
        GitError(function: "push", rawCode: -1, errorClass: GitError.networkClass, message: reason)
    }
}
