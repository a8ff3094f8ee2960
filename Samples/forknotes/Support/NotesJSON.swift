import ForkStore
import Foundation

/// The `list --json` and `import` form of a note: the five fields of version 1 (`done` stays a
/// boolean), plus `completedAt`, `due` and `updatedAt` when set.
struct NoteJSON: Codable {
    var id: String
    var title: String
    var body: String
    var tags: [String]
    var done: Bool
    var completedAt: Date?
    var due: Date?
    var updatedAt: Date?
    /// The note's attachments, by name (listed, never imported: `import` takes notes, not
    /// files).
    var attachments: [AttachmentJSON]?

    /// One attachment in a listing: its name, the asset's id, size and media type, and
    /// whether its bytes are in this store.
    struct AttachmentJSON: Codable {
        var name: String
        var id: String
        var size: Int
        var mediaType: String
        var local: Bool
    }

    init(_ note: Note, isLocal: (Asset) -> Bool = { _ in false }) {
        id = note.id
        title = note.title
        body = note.body
        tags = note.tags.sorted()
        done = note.done
        completedAt = note.completedAt
        due = note.due
        updatedAt = note.updatedAt
        attachments = note.attachments.isEmpty ? nil : note.attachments.sorted { $0.key < $1.key }.map { name, asset in
            AttachmentJSON(name: name, id: asset.id.oid, size: asset.size, mediaType: asset.mediaType, local: isLocal(asset))
        }
    }

    /// The note this line describes; a line with `done: true` and no `completedAt` is
    /// completed now.
    var note: Note {
        var note = Note(id: id, title: title, body: body, tags: Set(tags), done: done, due: due)
        if let completedAt { note.completedAt = completedAt }
        if let updatedAt { note.updatedAt = updatedAt }
        return note
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
