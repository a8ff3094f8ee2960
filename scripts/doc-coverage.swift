// Run by scripts/doc-coverage.sh: `swift scripts/doc-coverage.swift <package.json> <symbol graph folder>`.
//
// Reads `swift package dump-package` for the library products and, for each of their modules,
// the public symbol graphs (`<Module>.symbols.json`, and `<Module>@<Other>.symbols.json` for
// what it adds to another module's types). Lists every symbol with no doc comment of its own
// and exits 1 if there is one. Members, enum cases, initializers, associated types and protocol
// requirements count as symbols. Not counted: what the compiler synthesizes (the symbol graph
// marks it `::SYNTHESIZED::`: Equatable's `==`, `hashValue`, Codable's `init(from:)`), extension
// blocks, and implementations whose only comment is inherited from the protocol requirement
// they implement (the graph gives the comment with the requirement's module, as for a
// `description` that CustomStringConvertible documents).
import Foundation

struct Graph: Decodable {
    struct Module: Decodable { let name: String }
    struct Symbol: Decodable {
        struct Kind: Decodable { let identifier: String }
        struct Identifier: Decodable { let precise: String }
        struct DocComment: Decodable {
            struct Line: Decodable { let text: String }
            let module: String?
            let lines: [Line]
        }
        struct Location: Decodable {
            struct Position: Decodable { let line: Int }
            let uri: String
            let position: Position
        }
        let kind: Kind
        let identifier: Identifier
        let pathComponents: [String]
        let docComment: DocComment?
        let location: Location?
    }
    let module: Module
    let symbols: [Symbol]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("doc-coverage: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let packageFile = arguments.first, let folder = arguments.last else {
    fail("usage: doc-coverage.swift <dump-package JSON> <symbol graph folder>")
}
guard let packageData = FileManager.default.contents(atPath: packageFile),
    let package = try? JSONSerialization.jsonObject(with: packageData) as? [String: Any],
    let products = package["products"] as? [[String: Any]]
else { fail("\(packageFile) is not the output of `swift package dump-package`") }

var modules: [String] = []
for product in products {
    guard let type = product["type"] as? [String: Any], type["library"] != nil,
        let targets = product["targets"] as? [String]
    else { continue }
    for target in targets where !modules.contains(target) { modules.append(target) }
}
guard !modules.isEmpty else { fail("the package has no library product") }

let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
let root = FileManager.default.currentDirectoryPath + "/"
var missing: [(file: String, line: Int, text: String)] = []
var counted = 0
for module in modules {
    let graphs = files.filter { $0 == "\(module).symbols.json" || ($0.hasPrefix("\(module)@") && $0.hasSuffix(".symbols.json")) }
    guard graphs.contains("\(module).symbols.json") else { fail("no symbol graph for \(module) in \(folder)") }
    for file in graphs.sorted() {
        let path = (folder as NSString).appendingPathComponent(file)
        let graph: Graph
        do {
            graph = try JSONDecoder().decode(Graph.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            fail("cannot read \(path): \(error)")
        }
        for symbol in graph.symbols {
            if symbol.identifier.precise.contains("::SYNTHESIZED::") || symbol.kind.identifier == "swift.extension" { continue }
            counted += 1
            let documented = symbol.docComment.map { comment in
                comment.lines.contains { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty }
            } ?? false
            if documented { continue }
            var (file, line) = ("(no source location)", 0)
            if let location = symbol.location {
                file = location.uri.replacingOccurrences(of: "file://", with: "").replacingOccurrences(of: root, with: "")
                line = location.position.line + 1
            }
            let kind = symbol.kind.identifier.replacingOccurrences(of: "swift.", with: "")
            missing.append((file, line, "\(module): \(kind) \(symbol.pathComponents.joined(separator: "."))"))
        }
    }
}

if missing.isEmpty {
    print("doc-coverage: all \(counted) public symbols of \(modules.joined(separator: ", ")) have doc comments")
    exit(0)
}
print("doc-coverage: \(missing.count) of \(counted) public symbols have no doc comment:")
for symbol in missing.sorted(by: { ($0.file, $0.line, $0.text) < ($1.file, $1.line, $1.text) }) {
    print("  \(symbol.file):\(symbol.line): \(symbol.text)")
}
exit(1)
