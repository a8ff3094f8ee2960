/// JSON Pointers (RFC 6901): `/notes/4f2a/title`, with `~` written `~0` and `/` written `~1`.
enum JSONPointer {
    static func string(_ components: [String]) -> String {
        components.map { "/" + escape($0) }.joined()
    }

    private static func escape(_ component: String) -> String {
        var result = ""
        for character in component {
            switch character {
            case "~": result += "~0"
            case "/": result += "~1"
            default: result.append(character)
            }
        }
        return result
    }
}
