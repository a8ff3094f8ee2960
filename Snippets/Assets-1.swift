import ForkStore
import Foundation

struct Note: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var text: String
    var attachment: Asset?
}

let notes = try RecordStore<Note>.create(at: "/tmp/notes.store")
let photo = try notes.addAsset(contentsOf: URL(fileURLWithPath: "/tmp/cat.jpg"))
try notes.save(Note(id: "cat", text: "Our cat", attachment: photo))
print(photo.id, photo.size, photo.mediaType)    // sha256:…, its size, image/jpeg

let csv = try notes.addAsset(mediaType: "text/csv", fileName: "scores.csv") { writer in
    for score in [3, 1, 4] { try writer.write(Data("\(score)\n".utf8)) }
}
try notes.save(Note(id: "scores", text: "This week", attachment: csv))
