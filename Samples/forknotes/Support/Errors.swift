import ForkStore

/// Errors of the sample's own, with the next step to take.
enum NotesError: Error, CustomStringConvertible {
    case noteNotFound(id: String, fork: String)
    /// A note without an attachment of this name.
    case attachmentNotFound(name: String, id: String)
    /// A participant's key given as a path where there is no file.
    case noKeyFile(path: String)
    /// A participant's key file that cannot be used, and why (never its content).
    case keyFile(path: String, problem: String)

    var description: String {
        switch self {
        case .noteNotFound(let id, let fork):
            "No note with id '\(id)' on fork '\(fork)'. Run 'forknotes list --fork \(fork)' to see the ids."
        case .attachmentNotFound(let name, let id):
            "Note '\(id)' has no attachment named '\(name)'. Run 'forknotes list' to see its attachments.".escapedForTerminal
        case .noKeyFile(let path):
            """
            No file at '\(path)', and it is not a public key line: give the participant's key line \
            (ssh-ed25519 AAAA… [comment]) or the path of their .pub file.
            """.escapedForTerminal
        case .keyFile(let path, let problem):
            "Cannot use '\(path)' as a participant's key: \(problem).".escapedForTerminal
        }
    }
}
