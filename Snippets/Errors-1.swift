import ForkStore

struct Settings: Resource {
    static let modelVersion = 1
    var theme: String
}

let store = try Store<Settings>.open(at: "/tmp/settings.store")
do {
    try store.save(Settings(theme: "dark"))
} catch StoreError.locked, StoreError.readOnlyStore {
    print("The store cannot be written now; nothing was changed.")
} catch StoreError.unknownModelVersion {
    print("A newer version of the app wrote this store: update the app.")
}
