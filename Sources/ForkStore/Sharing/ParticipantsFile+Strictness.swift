/// How a participants file that arrives must be spelled (FORMAT.md §9): exactly as a writer
/// writes its list, byte for byte. A file that decodes to the same list in other bytes (a key
/// with a comment, a field no writer writes, `"name": null`) would change the file without
/// changing the list, so it is refused, whoever signed it.
extension ParticipantsFile {
    /// The list `bytes` (already checked as canonical JSON) hold, or the rule they break.
    static func strictlyDecoded(_ bytes: [UInt8]) -> Result<ParticipantsFile, ParticipantsFileError> {
        guard let json = try? CanonicalJSON.parse(bytes), case .object(let top) = json else {
            return .failure("it is not a JSON object")
        }
        if let unknown = top.first(where: { $0.key != "participants" }) {
            return .failure("it has the field '\(unknown.key)', which a participants file does not have")
        }
        guard case .array(let entries)? = json["participants"] else { return .failure("it has no 'participants' list") }
        for (index, entry) in entries.enumerated() {
            guard case .object(let members) = entry else { return .failure("participant \(index) is not an object") }
            if let unknown = members.first(where: { !["access", "key", "name"].contains($0.key) }) {
                return .failure("participant \(index) has the field '\(unknown.key)', which a participant does not have")
            }
            if entry["name"] == .null { return .failure("participant \(index) has a null name; a participant without a name has no 'name'") }
            guard case .string(let line)? = entry["key"] else { return .failure("participant \(index) has no key") }
            guard let key = try? ParticipantKey(line), key.description == line else {
                return .failure("the key of participant \(index) is not written 'ssh-ed25519 <base64>', with one space and no comment")
            }
        }
        guard let file = try? JSONValueDecoder().decode(ParticipantsFile.self, from: json) else {
            return .failure("its access is not one of read, write or owner, or a field has the wrong type")
        }
        if file.participants.isEmpty { return .failure("it names no one; a store shared with no one has no participants file") }
        if let key = file.repeatedKey { return .failure("it names \(key) twice") }
        // Whatever the rules above did not foresee: the bytes must be the list's own.
        guard (try? ValueCodec.encode(file)) == bytes else { return .failure("it is not written as a writer writes its list") }
        return .success(file)
    }
}

/// The rule an incoming participants file breaks.
struct ParticipantsFileError: Error, ExpressibleByStringInterpolation, CustomStringConvertible {
    let description: String

    init(stringLiteral value: String) { description = value }
}
