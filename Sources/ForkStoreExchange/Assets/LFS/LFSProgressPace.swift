/// Which of a request's progress callbacks become progress events: the first, then one each
/// time ``step`` more bytes moved (or fewer than before: a download started again), and the
/// last. curl calls back for every piece it hands over: a 100 KB object from giftless, which
/// streams a file line by line, came in 250 of them, and each event costs the exchange a lock,
/// a search of its status and a publication.
struct LFSProgressPace {
    /// The bytes between two events: 256 KiB, what one read or write of the body moves.
    static let step = 256 << 10

    private var reported: Int?

    /// Whether `bytes` of an object of `size` should be reported now.
    mutating func report(_ bytes: Int, of size: Int) -> Bool {
        if let reported {
            guard bytes != reported, bytes >= size || bytes < reported || bytes - reported >= Self.step else { return false }
        }
        reported = bytes
        return true
    }
}
