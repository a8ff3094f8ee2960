/// A record file on a fork that cannot be read as a record: not JSON, of the wrong shape, of a
/// newer model version, or holding an id that is not the one its path is made from (a phantom,
/// or a second copy of another record). Listings that tolerate damage report these instead of
/// failing; ``RecordStore/removeDamaged(_:from:message:)-23fov`` removes them.
public struct RecordProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the file is, from the tree's root (`records/ab/cd/name.json`).
    public let path: String
    /// The id the file claims to hold, when that much could be read.
    public let claimedID: String?
    /// Why it cannot be read.
    public let error: StoreError

    /// Makes a report of the file at `path`, as listings do; for comparing their results in
    /// tests.
    public init(path: String, claimedID: String?, error: StoreError) {
        self.path = path
        self.claimedID = claimedID
        self.error = error
    }

    public var description: String {
        "\(path)\(claimedID.map { " (record '\(TerminalText.escaping($0))')" } ?? ""): \(error)"
    }
}
