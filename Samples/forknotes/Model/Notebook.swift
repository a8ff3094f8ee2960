import ForkStore

/// The resource the sample stores: every note, keyed by id.
struct Notebook: Resource, Mergeable, Equatable {
    static let modelVersion = 1

    var notes: [String: Note] = [:]

    /// Merges note by note: a note changed on one side only takes that side; a note edited on
    /// one side and deleted on the other is kept; a note changed on both merges field by field.
    func merged(with subordinate: Notebook, ancestor: Notebook) throws -> Notebook {
        var result = Notebook()
        for id in Set(notes.keys).union(subordinate.notes.keys).union(ancestor.notes.keys) {
            let merged = Self.mergeNote(
                base: ancestor.notes[id], dominant: notes[id], subordinate: subordinate.notes[id])
            result.notes[id] = merged
        }
        return result
    }

    /// Two notebooks with no shared history: keep every note; where both have a note with the
    /// same id, the dominant side's copy wins.
    func salvaged(with subordinate: Notebook) throws -> Notebook {
        Notebook(notes: notes.merging(subordinate.notes) { mine, _ in mine })
    }

    private static func mergeNote(base: Note?, dominant: Note?, subordinate: Note?) -> Note? {
        if dominant == subordinate { return dominant }
        if subordinate == base { return dominant }
        if dominant == base { return subordinate }
        guard let dominant else { return subordinate }  // deleted here, edited there: keep the edit
        guard let subordinate else { return dominant }
        guard let base else { return dominant }  // added on both sides with one id
        func pick<T: Equatable>(_ path: KeyPath<Note, T>) -> T {
            dominant[keyPath: path] == base[keyPath: path] ? subordinate[keyPath: path] : dominant[keyPath: path]
        }
        let removed = base.tags.subtracting(dominant.tags).union(base.tags.subtracting(subordinate.tags))
        let added = dominant.tags.subtracting(base.tags).union(subordinate.tags.subtracting(base.tags))
        return Note(
            id: dominant.id,
            title: pick(\.title),
            body: pick(\.body),
            tags: base.tags.subtracting(removed).union(added),
            done: pick(\.done))
    }
}
