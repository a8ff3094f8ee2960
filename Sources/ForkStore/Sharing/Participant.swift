/// Someone a store is shared with: their ssh public key and what they may do.
///
/// A store's participants live in its tree (`participants.json`), so they travel with the data.
/// Once a store has participants, its exchange takes in only commits signed by a participant
/// who may write, and changes to the participants only when an owner signed them: a stranger or
/// a reader who can push to the server still cannot change anyone's data. A merge holds the
/// participants merge rule's list (a removal stays removed), so no merge with an older commit
/// brings back an older list (Schema/FORMAT.md section 9).
public struct Participant: Sendable, Hashable, Codable {
    /// What a participant may do.
    public enum Access: String, Sendable, Hashable, Codable, CaseIterable {
        /// Reads; their commits are refused.
        case read
        /// Reads and writes the data.
        case write
        /// Writes, and changes the participants.
        case owner

        /// Whether commits signed with this access are taken in.
        public var mayWrite: Bool { self != .read }
    }

    /// The participant's public key.
    public var key: ParticipantKey
    /// What they may do.
    public var access: Access
    /// A name for people to read (`alice`, `alice's phone`); not checked.
    public var name: String?

    /// A participant holding `key`, with `access`, and a name for people to read.
    public init(key: ParticipantKey, access: Access, name: String? = nil) {
        self.key = key
        self.access = access
        self.name = name
    }

    enum CodingKeys: String, CodingKey { case key, access, name }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try ParticipantKey(container.decode(String.self, forKey: .key))
        access = try container.decode(Access.self, forKey: .access)
        name = try container.decodeIfPresent(String.self, forKey: .name)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key.description, forKey: .key)
        try container.encode(access, forKey: .access)
        try container.encodeIfPresent(name, forKey: .name)
    }
}

/// `participants.json` at the root of a commit's tree.
struct ParticipantsFile: Codable, Equatable {
    static let path = "participants.json"

    var participants: [Participant]

    /// The participant with `key`, if any.
    func participant(with key: ParticipantKey) -> Participant? {
        participants.first { $0.key == key }
    }
}
