import Foundation

/// A folder under the system's temporary directory, removed when the value is released.
public final class TemporaryFolder: Sendable {
    public let path: String

    public init(_ label: String = "forkstore-test") {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the folder.
    public func child(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }
}
