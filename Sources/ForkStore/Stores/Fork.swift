import ForkStoreGit

/// A named line of history in a store: the git branch `refs/heads/<name>`.
///
/// `main` is the app's truth and is never deleted. `cloud` is the last state seen on the
/// remote and is written only by the exchange. Apps add their own (`ui`, `import`,
/// `background`) for concurrent work and merge them back.
///
/// Names follow git's reference-name rules (`git check-ref-format`), plus ForkStore's: no
/// leading `-`, no `HEAD`, at most 200 bytes.
public struct Fork: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The fork's name, for example `main` or `ui/drafts`.
    public let name: String

    /// The app's truth. Never deleted.
    public static let main = Fork(unchecked: "main")
    /// The last state seen on the remote; written only by the exchange.
    public static let cloud = Fork(unchecked: "cloud")

    /// Validates `name`, throwing ``StoreError/invalidForkName(_:reason:)`` with the rule it breaks.
    public init(_ name: String) throws(StoreError) {
        if let reason = Fork.problem(with: name) {
            throw StoreError.invalidForkName(name, reason: reason)
        }
        do { try Libgit2.ensureInitialized() } catch { throw StoreError(error, during: "starting libgit2") }
        guard Repository.isValidReferenceName(Self.referencePrefix + name) else {
            throw StoreError.invalidForkName(name, reason: "git does not accept it as a branch name")
        }
        self.name = name
    }

    init(unchecked name: String) {
        self.name = name
    }

    /// Where git keeps forks: `refs/heads/`.
    static let referencePrefix = "refs/heads/"

    /// The full git reference name.
    var referenceName: String { Self.referencePrefix + name }

    public var description: String { name }

    public static func < (lhs: Fork, rhs: Fork) -> Bool { lhs.name < rhs.name }

    /// The first rule `name` breaks, or nil when it is a valid fork name.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.utf8.count > 200 { return "the name is longer than 200 bytes" }
        if name.hasPrefix("-") { return "it starts with '-'" }
        if name == "HEAD" || name == "@" { return "'\(name)' is reserved by git" }
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { return "it contains a control character" }
            switch scalar {
            case " ": return "it contains a space"
            case "~", "^", ":", "?", "*", "[", "\\":
                return "it contains '\(scalar)', which git does not allow in names"
            default: continue
            }
        }
        if name.contains("..") { return "it contains '..'" }
        if name.contains("@{") { return "it contains '@{'" }
        if name.contains("//") { return "it contains an empty path component ('//')" }
        if name.hasPrefix("/") || name.hasSuffix("/") { return "it starts or ends with '/'" }
        if name.hasSuffix(".") { return "it ends with '.'" }
        for component in name.split(separator: "/") {
            if component.hasPrefix(".") { return "a component starts with '.'" }
            if component.hasSuffix(".lock") { return "a component ends with '.lock'" }
        }
        return nil
    }
}
