/// JSON Pointers (RFC 6901): `/notes/4f2a/title`, with `~` written `~0` and `/` written `~1`,
/// escaped per Unicode scalar (a `/` followed by a combining mark is still a `/`).
enum JSONPointer {
    static func string(_ components: [String]) -> String {
        components.map { "/" + escape($0) }.joined()
    }

    static func escape(_ component: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in component.unicodeScalars {
            switch scalar {
            case "~": result.append(contentsOf: "~0".unicodeScalars)
            case "/": result.append(contentsOf: "~1".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
