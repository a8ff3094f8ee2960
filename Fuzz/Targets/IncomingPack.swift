import Foundation
import ForkStoreGit

extension FuzzTarget {
    /// A fetched pack as it arrives (``IncomingPackCheck``), with small limits (64 KB per
    /// object, 1 MB per fetch): it is accepted or refused the same however the bytes are split
    /// into reads (whole, or in pieces whose sizes the input's first byte picks; which fault
    /// is met first may differ), and the check's memory stays small whatever sizes the headers
    /// declare (libFuzzer's RSS limit).
    ///
    /// Read in pieces, the pack is also copied as it arrives (``ArrivingPack``) and its blobs
    /// read from the copy (``ArrivingPackReader``), as a fetch checks them ahead: the reading
    /// ends, and every blob it gives is within the limit and named by the hash of its bytes.
    static let incomingPack = FuzzTarget(name: "incoming-pack") { bytes in
        let limits = IncomingLimits(maximumObjectSize: 1 << 16, maximumFetchSize: 1 << 20)
        func verdict(splitting step: Int, copyingTo arriving: ArrivingPack? = nil) -> String {
            do {
                let check = try IncomingPackCheck(limits: limits)
                check.entryEnded = arriving.map { arriving in { arriving.entryArrived($0) } }
                try bytes.withUnsafeBytes { raw in
                    var start = 0
                    while start < raw.count {
                        let end = min(raw.count, start + step)
                        let piece = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                        try check.consume(piece)
                        arriving?.write(piece)
                        start = end
                    }
                }
                try check.finish()
                return "accepted"
            } catch {
                return "refused"
            }
        }
        let whole = verdict(splitting: max(bytes.count, 1))
        let copy = NSTemporaryDirectory() + "/forkstore-fuzz-arriving-\(getpid()).pack"
        let arriving = try? ArrivingPack(path: copy)
        let pieces = verdict(splitting: Int(bytes.first ?? 1) % 7 + 1, copyingTo: arriving)
        check(whole == pieces, "read whole: \(whole); in pieces: \(pieces) (\(shown(bytes)))")
        guard let arriving else { return }
        arriving.complete()
        ArrivingPackReader.forEachBlob(in: arriving, maximumObjectSize: limits.maximumObjectSize) { id, object in
            check(
                object.kind == .blob && object.bytes.count <= limits.maximumObjectSize && id == ObjectID.blobHash(of: object.bytes),
                "blob \(id.hex) of \(object.bytes.count) bytes (\(shown(bytes)))")
        }
        arriving.stop()
    }
}
