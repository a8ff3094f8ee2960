import Foundation
import Testing

/// Every Swift block in README.md and the DocC articles is a file in Snippets/, which
/// `swift build` compiles: a broken example fails the build, and an edited block that was not
/// copied (`bash scripts/doc-snippets.sh`) fails here.
@Suite("Documentation examples")
struct DocumentationExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift blocks of a markdown file, each with its lines' newlines.
    static func swiftBlocks(of text: String) -> [String] {
        var blocks: [String] = []
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = ""
            } else if let block = current, trimmed == "```" {
                blocks.append(block)
                current = nil
            } else if current != nil {
                current? += line + "\n"
            }
        }
        return blocks
    }

    static func documents() throws -> [URL] {
        let sources = root.appendingPathComponent("Sources")
        var found = [root.appendingPathComponent("README.md")]
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let modulePath = sources.appendingPathComponent(module)
            for catalog in (try? FileManager.default.contentsOfDirectory(atPath: modulePath.path)) ?? [] where catalog.hasSuffix(".docc") {
                let catalogPath = modulePath.appendingPathComponent(catalog)
                for article in try FileManager.default.contentsOfDirectory(atPath: catalogPath.path).sorted() where article.hasSuffix(".md") {
                    found.append(catalogPath.appendingPathComponent(article))
                }
            }
        }
        return found
    }

    @Test func everySwiftBlockIsACompiledSnippet() throws {
        var expected: [String: String] = [:]
        for document in try Self.documents() {
            let stem = document.deletingPathExtension().lastPathComponent
            let blocks = Self.swiftBlocks(of: try String(contentsOf: document, encoding: .utf8))
            for (index, block) in blocks.enumerated() {
                expected["\(stem)-\(index + 1).swift"] = block
            }
        }
        #expect(expected.count >= 10, "the docs hold Swift examples")
        let snippets = Self.root.appendingPathComponent("Snippets")
        let files = try FileManager.default.contentsOfDirectory(atPath: snippets.path).filter { $0.hasSuffix(".swift") }
        #expect(Set(files) == Set(expected.keys), "run bash scripts/doc-snippets.sh")
        for (name, block) in expected.sorted(by: { $0.key < $1.key }) {
            let file = try? String(contentsOf: snippets.appendingPathComponent(name), encoding: .utf8)
            #expect(file == block, "Snippets/\(name) differs from its block in the docs; run bash scripts/doc-snippets.sh")
        }
    }
}
