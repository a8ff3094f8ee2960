import ForkStore
@testable import ForkStoreExchange
import Foundation

extension FuzzTarget {
    /// A Git LFS batch answer (`LFSBatchAnswer`), read as the answer to a download and to an
    /// upload of two objects (the SHA-256 of "a" and of "b", one byte each). What it accepts
    /// answers each requested object exactly once; every action's href is an http(s) URL
    /// without userinfo that reads back to the same origin; no header carries a control
    /// character or a framing header; a download's actions hold a download; and reading is
    /// deterministic.
    static let lfsBatch = FuzzTarget(name: "lfs-batch") { bytes in
        for operation in [LFSOperation.download, .upload] {
            let request = LFSBatchRequest(operation, lfsFuzzObjects)
            // Expiries count from the answer's arrival: one moment for both readings.
            let now = Date()
            guard let answer = try? LFSBatchAnswer(parsing: bytes, for: request, receivedAt: now) else { continue }
            check(Set(answer.objects.keys) == Set(lfsFuzzObjects.map(\.id)), "answers \(answer.objects.keys) for \(shown(bytes))")
            check((try? LFSBatchAnswer(parsing: bytes, for: request, receivedAt: now)) == answer, "two readings differ: \(shown(bytes))")
            for case .actions(let actions) in answer.objects.values {
                check(operation == .upload || actions["download"] != nil, "a download without its action: \(shown(bytes))")
                check(Set(actions.keys).isSubset(of: ["upload", "verify", "download"]), "actions \(actions.keys)")
                for action in actions.values {
                    let href = action.href
                    check(href.origin.scheme == "http" || href.origin.scheme == "https", "href \(href.text)")
                    check(HTTPURL(href.text)?.origin == href.origin, "href \(href.text) reads back elsewhere")
                    check(CurlURL.parse(href.text)?.user == false, "href \(href.text) carries a user or password")
                    check(action.headers.count <= LFSBatchAnswer.maximumHeaders, "\(action.headers.count) headers")
                    for header in action.headers {
                        check(
                            !header.value.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
                                && !header.name.contains(":") && !header.name.isEmpty,
                            "header \(String(reflecting: header.name)): \(String(reflecting: header.value))")
                        check(
                            !["content-length", "host", "transfer-encoding", "range"].contains(header.name.lowercased()),
                            "framing header \(header.name)")
                    }
                }
            }
        }
    }
}

/// The objects of the fuzzed requests: "a" and "b".
private let lfsFuzzObjects = [
    "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
    "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d",
].compactMap(AssetID.init).map { AssetObject(id: $0, size: 1) }
