/// The stamp trailers of a commit, read strictly (Schema/FORMAT.md 5): `Model-Version` and
/// `Format-Version` exactly once, `Lamport`, `Clock`, `Replica` and `Record-Count` at most
/// once, each in its one written form. Anything else makes the commit malformed: refused
/// with ``problem``, never guessed (no `+2`, no first of two, no clamping).
struct CommitStamp {
    var modelVersion: Int?
    var formatVersion: Int?
    var lamport = 0
    var clock: HybridTime?
    var replica: String?
    var recordCount: Int?
    /// The commit a checkpoint stands in for (Schema/FORMAT.md §16): `Checkpoint-Of`, exactly
    /// once when present, 40 lowercase hexadecimal digits.
    var checkpointOf: CommitID?
    /// The checkpoint a checkpoint's lineage was cut from: `Checkpoint-After`, at most once,
    /// 40 lowercase hexadecimal digits, only beside `Checkpoint-Of`.
    var checkpointAfter: CommitID?
    /// Why the message or a stamp trailer is malformed; nil when it is not.
    var problem: String?

    init(_ message: CommitMessage.Parsed) {
        problem = message.problem
        let trailers = message.trailers
        func complain(_ reason: String) { if problem == nil { problem = reason } }
        /// The trailer's one value; a second one is a problem ("exactly one" for the versions).
        func single(_ key: String, required: Bool = false) -> String? {
            let found = trailers.values(forKey: key)
            if found.count > 1 {
                complain("it has \(found.count) \(key) trailers; \(required ? "exactly" : "at most") one is \(required ? "required" : "allowed")")
            }
            return found.count == 1 ? found[0] : nil
        }
        func decimal(_ key: String, _ text: String?, below limit: Int, minimum: Int = 0) -> Int? {
            guard let text else { return nil }
            guard let number = Self.decimal(text, below: limit), number >= minimum else {
                complain("its \(key) '\(text)' is not a whole number from \(minimum) to \(limit - 1)")
                return nil
            }
            return number
        }
        modelVersion = decimal(TrailerKey.modelVersion, single(TrailerKey.modelVersion, required: true), below: Self.versionLimit, minimum: 1)
        formatVersion = decimal(TrailerKey.formatVersion, single(TrailerKey.formatVersion, required: true), below: Self.versionLimit, minimum: 1)
        if modelVersion != nil, trailers.values(forKey: TrailerKey.formatVersion).isEmpty {
            complain("it has no Format-Version trailer; exactly one is required")
        }
        lamport = decimal(TrailerKey.lamport, single(TrailerKey.lamport), below: Self.limit) ?? 0
        recordCount = decimal(TrailerKey.recordCount, single(TrailerKey.recordCount), below: Self.limit)
        if let text = single(TrailerKey.clock) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            if parts.count == 2, let milliseconds = Self.decimal(parts[0], below: Self.limit),
               let counter = Self.decimal(parts[1], below: HybridTime.counterLimit) {
                clock = HybridTime(milliseconds: Int64(milliseconds), counter: counter)
            } else {
                complain("its Clock '\(text)' is not <milliseconds>-<counter> within range")
            }
        }
        if let text = single(TrailerKey.checkpointOf) {
            if Checkpoint.isFullLowercaseHex(text), let id = CommitID(text) { checkpointOf = id } else {
                complain("its Checkpoint-Of '\(text)' is not a full commit id (40 lowercase hexadecimal digits)")
            }
        }
        if let text = single(TrailerKey.checkpointAfter) {
            if !Checkpoint.isFullLowercaseHex(text) {
                complain("its Checkpoint-After '\(text)' is not a full commit id (40 lowercase hexadecimal digits)")
            } else if trailers.values(forKey: TrailerKey.checkpointOf).isEmpty {
                complain("it has Checkpoint-After without Checkpoint-Of; only a checkpoint names the checkpoint it was cut after")
            } else {
                checkpointAfter = CommitID(text)
            }
        }
        if let text = single(TrailerKey.replica) {
            if StoreClock.isValid(text) { replica = text } else {
                complain("its Replica '\(text)' is not 16 lowercase hexadecimal digits")
            }
        }
    }

    /// 10^9: the bound on model and format versions (a record's `modelVersion` too).
    static let versionLimit = 1_000_000_000

    /// 10^15: the bound on Lamport counters, clock milliseconds and record counts.
    static let limit = 1_000_000_000_000_000

    /// Decimal digits without sign or leading zero, below `limit`.
    static func decimal(_ text: String, below limit: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (48...57).contains($0) }),
              text == "0" || !text.hasPrefix("0"), let number = Int(text), number < limit
        else { return nil }
        return number
    }
}
