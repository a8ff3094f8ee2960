import ForkStore

struct Settings: Resource {
    static let modelVersion = 1
    var theme: String
}

let store = try Store<Settings>.open(at: "/tmp/settings.store")
do {
    print(try store.value() as Any)
} catch let error as StoreError where error.code == .unknownModelVersion {
    let found = error.foundVersion ?? 0, known = error.supportedVersion ?? 0
    print("Model version \(found) in commit \(error.commit?.short ?? "?"); this app reads up to \(known).")
} catch let error as StoreError where error.code == .repository {
    // libgit2 failed: what the store was doing, and libgit2's error code.
    print("\(error.operation ?? "?") failed with libgit2 code \(error.underlyingCode ?? 0)")
}
