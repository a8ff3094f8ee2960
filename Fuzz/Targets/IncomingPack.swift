import ForkStoreGit

extension FuzzTarget {
    /// A fetched pack as it arrives (``IncomingPackCheck``), with small limits (64 KB per
    /// object, 1 MB per fetch): it is accepted or refused the same however the bytes are split
    /// into reads (whole, or in pieces whose sizes the input's first byte picks; which fault
    /// is met first may differ), and the check's memory stays small whatever sizes the headers
    /// declare (libFuzzer's RSS limit).
    static let incomingPack = FuzzTarget(name: "incoming-pack") { bytes in
        let limits = IncomingLimits(maximumObjectSize: 1 << 16, maximumFetchSize: 1 << 20)
        func verdict(splitting step: Int) -> String {
            do {
                let check = try IncomingPackCheck(limits: limits)
                try bytes.withUnsafeBytes { raw in
                    var start = 0
                    while start < raw.count {
                        let end = min(raw.count, start + step)
                        try check.consume(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
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
        let pieces = verdict(splitting: Int(bytes.first ?? 1) % 7 + 1)
        check(whole == pieces, "read whole: \(whole); in pieces: \(pieces) (\(shown(bytes)))")
    }
}
