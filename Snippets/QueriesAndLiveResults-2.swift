import ForkStore
import ForkStoreQueries

struct Message: IndexedRecord {
    static let modelVersion = 1
    static let indexedFields: [IndexedField<Message>] = [.field("sentAt", \.sentAt)]
    var id: String
    var text: String
    var sentAt: Double
}

let chat = try RecordStore<Message>.inMemory()
let latest = RecordQuery<Message>().sorted(by: \.sentAt, descending: true).limit(50)
let follower = Task {
    for try await messages in chat.results(of: latest) {
        print("\(messages.count) message(s)")
        if messages.count == 2 { break }
    }
}
try chat.save(Message(id: "m1", text: "hello", sentAt: 1))
try chat.save(Message(id: "m2", text: "hi!", sentAt: 2))
try await follower.value
