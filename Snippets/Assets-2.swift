import ForkStore
import Foundation

struct Note: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var text: String
    var attachment: Asset?
}

let notes = try RecordStore<Note>.open(at: "/tmp/notes.store")
if let photo = try notes.record("cat")?.attachment {
    if notes.isLocal(photo) {
        let data = try Data(contentsOf: notes.localURL(of: photo))
        print("\(photo.fileName ?? "photo"): \(data.count) bytes")
    } else {
        print("not here yet: sync to fetch it")
    }
    try notes.pin(photo)    // keep it here, for use offline
}
