import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("A remote that sends damaged data")
struct CorruptRemoteTests {
    @Test func aCorruptObjectOnTheRemoteIsAnErrorAndTheStoreStaysAsItWas() async throws {
        let lab = try await SyncLab()
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        let (writer, writerSync) = try lab.replica("writer", url: daemon.url("remote.git"))
        try writer.add("shared")
        try await writerSync.sync()
        try writer.add("damaged-soon")
        try await writerSync.sync()
        // Damage the newest blob on the remote: same name, garbage content.
        let blob = try await git("--git-dir", lab.remotePath, "rev-parse", "main:value.json").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let objectPath = lab.remotePath + "/objects/" + blob.prefix(2) + "/" + blob.dropFirst(2)
        try FileManager.default.removeItem(atPath: objectPath)
        try Data("this is not a zlib stream".utf8).write(to: URL(fileURLWithPath: objectPath))

        let (reader, readerSync) = try lab.replica("reader", url: daemon.url("remote.git"))
        try reader.add("local")
        let mainBefore = try await reader.head()
        let error = await expectSync(readerSync, failsWith: .corruptData)
        #expect(error.map { "\($0)".contains("is corrupt") } == true)
        #expect(readerSync.status.state == .failed)
        #expect(try await reader.head() == mainBefore)
        #expect(try reader.items() == ["local"])
        let fsck = try await git("--git-dir", reader.path, "fsck")
        #expect(fsck.status == 0, "\(fsck.stdout)\(fsck.stderr)")
    }
}
