import ForkStore

extension RecordStore<Note> {
    /// Every note file on a fork that cannot be read as a note, found without keeping the notes.
    func damagedNoteFiles(in fork: Fork) throws -> [RecordProblem] {
        var problems: [RecordProblem] = []
        try forEachRecord(in: fork, onProblem: { problems.append($0) }) { _ in }
        return problems
    }
}
