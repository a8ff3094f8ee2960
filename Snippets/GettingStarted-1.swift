import ForkStore

struct Settings: Resource {
    static let modelVersion = 1
    var theme: String
    var fontSize: Int
}

let path = "/tmp/settings.store"
let store = try Store<Settings>.create(at: path)   // a new bare git repository
try store.save(Settings(theme: "light", fontSize: 13))
try store.update { $0?.fontSize += 1 }              // read-modify-write in one commit
print(try store.value()!)                           // Settings(theme: "light", fontSize: 14)
try store.remove()                                  // a tombstone commit; history keeps the rest

let again = try Store<Settings>.open(at: path)      // later, or in another process
print(try again.value() as Any)                     // nil: removed
