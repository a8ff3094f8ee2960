import ForkStore

struct Note: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var text: String
}

func openNotes(at path: String) throws -> RecordStore<Note> {
    var options = StoreOptions()
    options.history = .keepCommits(10_000)  // or .keepDays(90)
    let notes = try RecordStore<Note>.open(at: path, options: options)
    try notes.pack()  // compacts back to 10,000 once main holds more than 20,000 commits
    return notes
}
