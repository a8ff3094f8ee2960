import ForkStore

/// Errors of the sample's own, with the next step to take.
enum NotesError: Error, CustomStringConvertible {
    case noteNotFound(id: String, fork: String)

    var description: String {
        switch self {
        case .noteNotFound(let id, let fork):
            "No note with id '\(id)' on fork '\(fork)'. Run 'forknotes list --fork \(fork)' to see the ids."
        }
    }
}
