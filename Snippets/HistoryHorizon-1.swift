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
    try notes.pack()  // compacts when main holds more than 10,000 commits
    return notes
}
